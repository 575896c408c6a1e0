// DWResponses: the server's answers — images with cache headers, one-line errors, plain text; reason phrases are
// HTTPTypes' (the statuses' own), never a table of ours.
import DWWebImage
import Foundation
import Hummingbird
import HTTPTypes

/// Builds the server's responses. Pure functions, callable from any thread.
enum DWResponses {
    /// `status` (200, or a fallback image's) with the image (`Content-Type`, `Content-Length`, strong `ETag`,
    /// `Cache-Control: public, max-age`, `Vary: Accept` when `varies` in front of any `Vary` of `extra`, and the
    /// `extra` fields), or 304 without a
    /// body when `ifNoneMatch` matches the ETag. `body` is the image's buffer and ETag, made once per image
    /// (``DWServedBytes``). Without `validators` (a fallback image) no ETag is sent and no 304 answered.
    static func image(
        _ body: DWServedBytes.Body, contentType: String, maxAge: Int, varies: Bool,
        ifNoneMatch: [String], status: HTTPResponse.Status = .ok, extra: HTTPFields = HTTPFields(),
        validators: Bool = true
    ) -> Response {
        let etag = body.etag
        var headers = extra
        // Appended, not set: `extra` never holds these, and setting one searches the fields for it first.
        assert(extra[.eTag] == nil && extra[.cacheControl] == nil && extra[.contentType] == nil)
        if validators { headers.append(HTTPField(name: .eTag, value: etag)) }
        headers.append(HTTPField(name: .cacheControl, value: "public, max-age=\(maxAge)"))
        if varies { headers[.vary] = headers[.vary].map { "Accept, " + $0 } ?? "Accept" }  // before client hints
        addSecurityHeaders(&headers)
        if validators, DWETag.matches(ifNoneMatch: ifNoneMatch, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers.append(HTTPField(name: .contentType, value: contentType))
        headers.append(HTTPField(name: .contentLength, value: String(body.buffer.readableBytes)))
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body.buffer))
    }

    /// A one-line text error: "403 Forbidden: invalid signature" (the status's HTTPTypes reason phrase). With
    /// traces on, the request's span records the message (``DWAnswerFailure``).
    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        DWAnswerFailure.current?.note(message)
        return text(status, errorLine(status, message))
    }

    /// "403 Forbidden: invalid signature\n": the message's line breaks become spaces.
    static func errorLine(_ status: HTTPResponse.Status, _ message: String) -> String {
        let line = message.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        return "\(status.code) \(status.reasonPhrase): \(line)\n"
    }

    /// A text answer that no cache keeps.
    static func text(
        _ status: HTTPResponse.Status, _ body: String,
        contentType: String = "text/plain; charset=utf-8"
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.contentLength] = String(body.utf8.count)
        headers[.cacheControl] = "no-store"
        addSecurityHeaders(&headers)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// `X-Content-Type-Options: nosniff` and a CSP that makes any body inert in a browser, appended to fields that
    /// have neither yet.
    static func addSecurityHeaders(_ headers: inout HTTPFields) {
        assert(headers[securityFields[0].name] == nil && headers[securityFields[1].name] == nil)
        headers.append(contentsOf: securityFields)
    }

    // Made (and their values checked) once, not per response.
    private static let securityFields = [
        HTTPField(name: HTTPField.Name("X-Content-Type-Options")!, value: "nosniff"),
        HTTPField(
            name: HTTPField.Name("Content-Security-Policy")!,
            value: "default-src 'none'; style-src 'unsafe-inline'; sandbox")
    ]
}

/// Entity tags of served bytes.
enum DWETag {
    /// A strong ETag of the bytes served: 128 bits of their SHA-256, in hex.
    static func of(_ data: Data) -> String {
        "\"" + DWDigest.sha256Hex(data, bytes: 16) + "\""
    }

    /// RFC 9110 §13.1.2: weak comparison, "*" matches anything.
    static func matches(ifNoneMatch values: [String], etag: String) -> Bool {
        for value in values {
            for candidate in value.split(separator: ",") {
                var tag = candidate.trimmingCharacters(in: .whitespaces)
                if tag == "*" { return true }
                if tag.hasPrefix("W/") { tag.removeFirst(2) }
                if tag == etag { return true }
            }
        }
        return false
    }
}
