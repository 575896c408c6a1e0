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
    /// `extraNamesAreOthers`: the caller knows `extra` holds none of the fields set here (fixed names only).
    static func image(
        _ body: DWServedBytes.Body, contentType: String, maxAge: Int, varies: Bool,
        ifNoneMatch: [String], status: HTTPResponse.Status = .ok, extra: HTTPFields = HTTPFields(),
        extraNamesAreOthers: Bool = false, validators: Bool = true
    ) -> Response {
        let etag = body.etag
        var headers = extra
        // When `extra` cannot hold these names the fields are appended, sparing the subscript's search for an
        // earlier field of the name; else one of `extra` by such a name (a fallback header named so) is replaced.
        let fresh = extraNamesAreOthers || extra.isEmpty
        func put(_ name: HTTPField.Name, _ value: String) {
            if fresh { headers.append(HTTPField(name: name, value: value)) } else { headers[name] = value }
        }
        if validators { put(.eTag, etag) }
        put(.cacheControl, "public, max-age=\(maxAge)")
        if varies { headers[.vary] = headers[.vary].map { "Accept, " + $0 } ?? "Accept" }  // before client hints
        addSecurityHeaders(&headers, appending: fresh)
        if validators, DWETag.matches(ifNoneMatch: ifNoneMatch, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        put(.contentType, contentType)
        put(.contentLength, String(body.buffer.readableBytes))
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
        addSecurityHeaders(&headers, appending: true)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// `X-Content-Type-Options: nosniff` and a CSP that makes any body inert in a browser, replacing fields of those
    /// names; `appending` when the caller knows there are none (no search for them).
    static func addSecurityHeaders(_ headers: inout HTTPFields, appending: Bool = false) {
        if appending {
            headers.append(contentsOf: securityFields)
        } else {
            for field in securityFields { headers[field.name] = field.value }
        }
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
