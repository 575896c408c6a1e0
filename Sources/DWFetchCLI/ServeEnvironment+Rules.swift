// ServeEnvironment's table: each IMGPROXY_* variable serve knows, and the flags it becomes.
import Foundation

extension ServeEnvironment {
    /// Every variable serve knows, by its name after `IMGPROXY_`.
    static let rules: [String: Rule] = {
        var table: [String: Rule] = [
            "BIND": Rule(flag: "--host") { name, value throws(Failure) in try bind(name, value) },
            "KEY": elsewhere, "SALT": elsewhere,
            "WORKERS": integer("--workers", minimum: 1),
            // imgproxy: 0 (its default) is an unbounded queue, where serve keeps its bounded one; a size answers 429.
            "REQUESTS_QUEUE_SIZE": Rule(flag: "--queue") { name, value throws(Failure) in
                let size = try int(name, value)
                guard size >= 0 else { throw Failure(variable: name, reason: "must be at least 0") }
                return size == 0 ? [] : ["--queue", String(size), "--queue-full-status", "429"]
            },
            "MAX_CLIENTS": integer("--max-connections", minimum: 1),
            "TIMEOUT": seconds("--request-timeout"),
            "READ_REQUEST_TIMEOUT": seconds("--header-timeout"),
            "WRITE_RESPONSE_TIMEOUT": seconds("--write-timeout"),
            "KEEP_ALIVE_TIMEOUT": seconds("--idle-timeout"),
            "DOWNLOAD_TIMEOUT": seconds("--timeout"),
            "TTL": integer("--max-age", minimum: 0),
            "FALLBACK_IMAGE_TTL": integer("--fallback-max-age", minimum: 0),
            "MAX_SRC_RESOLUTION": Rule(flag: "--max-pixels") { name, value throws(Failure) in
                let megapixels = try number(name, value)
                guard megapixels > 0 else { throw Failure(variable: name, reason: "must be above 0 (megapixels)") }
                return ["--max-pixels", String(Int((megapixels * 1_000_000).rounded()))]
            },
            "MAX_SRC_FILE_SIZE": Rule(flag: "--max-size") { name, value throws(Failure) in
                let bytes = try int(name, value)
                guard bytes > 0 else {
                    throw Failure(variable: name, reason: "0 (no limit) is not allowed by dwfetch serve: give a size")
                }
                return ["--max-size", String(bytes)]
            },
            "MAX_ANIMATION_FRAMES": integer("--max-animation-frames", minimum: 1),
            "MAX_ANIMATION_FRAME_RESOLUTION": Rule(flag: "--max-animation-frame-pixels") {
                name, value throws(Failure) in
                let megapixels = try number(name, value)
                guard megapixels >= 0 else { throw Failure(variable: name, reason: "must be 0 or more (megapixels)") }
                return megapixels == 0
                    ? [] : ["--max-animation-frame-pixels", String(Int((megapixels * 1_000_000).rounded()))]
            },
            "PREFERRED_FORMATS": text("--preferred-formats"),
            "FORMAT_QUALITY": text("--format-quality"),
            "QUALITY": integer("--quality", in: 1...100),
            "LOCAL_FILESYSTEM_ROOT": text("--local-root"),
            "WATERMARK_PATH": text("--watermark"),
            "FALLBACK_IMAGE_PATH": text("--fallback-image"),
            "FALLBACK_IMAGE_HTTP_CODE": integer("--fallback-status", minimum: 100),
            "S3_ENDPOINT": text("--s3-endpoint"),
            "PROMETHEUS_BIND": text("--metrics-bind"),
            "PRESETS": Rule(flag: "--preset") { _, value in list(value).flatMap { ["--preset", $0] } },
            "PRESETS_PATH": Rule(flag: "--preset") { name, value throws(Failure) in try presetFile(name, value) },
            "USE_S3": enable("--allow-s3"),
            "ONLY_PRESETS": enable("--only-presets"),
            "ALLOW_SECURITY_OPTIONS": enable("--allow-security-options"),
            "ALWAYS_RASTERIZE_SVG": enable("--always-rasterize-svg"),
            "AUTO_WEBP": enable("--auto-webp"), "ENABLE_WEBP_DETECTION": enable("--auto-webp"),
            "ENFORCE_WEBP": enable("--enforce-webp"), "AUTO_AVIF": enable("--auto-avif"),
            "ENFORCE_AVIF": enable("--enforce-avif"), "AUTO_JXL": enable("--auto-jxl"),
            "ENFORCE_JXL": enable("--enforce-jxl"),
            "SANITIZE_SVG": Rule(flag: "--sanitize-svg") { name, value throws(Failure) in
                [try bool(name, value) ? "--sanitize-svg" : "--no-sanitize-svg"]
            },
            "ALLOW_LOOPBACK_SOURCE_ADDRESSES": networks(["127.0.0.0/8", "::1/128"]),
            "ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": networks(["169.254.0.0/16", "fe80::/10"]),
            "ALLOW_PRIVATE_SOURCE_ADDRESSES": networks(["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"]),
            "LOG_LEVEL": Rule(flag: "--verbose") { name, value throws(Failure) in
                switch value.lowercased() {
                case "debug", "info": return ["--verbose"]
                case "warn", "warning", "error", "fatal": return []
                default: throw Failure(variable: name, reason: "'\(value)' is not debug, info, warn or error")
                }
            },
            "LOG_FORMAT": text("--log-format"),
            "PROMETHEUS_NAMESPACE": text("--prometheus-namespace"),
            "ALLOW_ORIGIN": text("--allow-origin"),
            "SET_CANONICAL_HEADER": enable("--set-canonical-header"),
            "USE_LAST_MODIFIED": enable("--use-last-modified"),
            "USE_ETAG": Rule(flag: "--no-etag") { name, value throws(Failure) in
                try bool(name, value) ? [] : ["--no-etag"]
            },
            "CACHE_CONTROL_PASSTHROUGH": enable("--cache-control-passthrough"),
            "USER_AGENT": text("--user-agent"),
            "MAX_REDIRECTS": integer("--max-redirects", minimum: 0),
            "IGNORE_SSL_VERIFICATION": enable("--ignore-ssl-verification"),
            "HEALTH_CHECK_PATH": text("--health-check-path"),
            "PATH_PREFIX": text("--path-prefix"),
            "S3_REGION": elsewhere,  // read as AWS_REGION by ``exportingS3Region(_:)``
            "SECRET": elsewhere,  // read where the configuration is made, never turned into an argument
            "SIGNATURE_SIZE": Rule(flag: "--signature-size") { name, value throws(Failure) in
                let size = try int(name, value)
                guard (1...32).contains(size) else { throw Failure(variable: name, reason: "must be 1 to 32") }
                return ["--signature-size", String(size)]
            },
            "TRUSTED_SIGNATURES": Rule(flag: "--trusted-signature") { _, value in
                list(value).flatMap { ["--trusted-signature", $0] }
            },
            "ALLOWED_SOURCES": Rule(flag: "--allowed-source") { _, value in
                list(value).flatMap { ["--allowed-source", $0] }
            },
            "BASE_URL": text("--base-url"),
            "ALLOWED_PROCESSING_OPTIONS": Rule(flag: "--allowed-processing-option") { _, value in
                list(value).flatMap { ["--allowed-processing-option", $0] }
            },
            "ENABLE_CLIENT_HINTS": enable("--enable-client-hints"),
            "URL_REPLACEMENTS": Rule(flag: "--url-replacement") { name, value throws(Failure) in
                var flags: [String] = []
                for pair in value.split(separator: ";") where !pair.trimmingCharacters(in: .whitespaces).isEmpty {
                    guard pair.contains("=") else {
                        throw Failure(variable: name, reason: "'\(pair)' is not PATTERN=REPLACEMENT")
                    }
                    flags += ["--url-replacement", String(pair)]
                }
                return flags
            },
            "JPEG_PROGRESSIVE": enable("--jpeg-progressive"),
            "PNG_INTERLACED": enable("--png-interlaced"),
            "PNG_QUANTIZE": enable("--png-quantize"),
            "PNG_QUANTIZATION_COLORS": integer("--png-quantization-colors", in: 2...256),
            "WEBP_EFFORT": integer("--webp-effort", in: 1...6),
            "AVIF_SPEED": integer("--avif-speed", in: 0...9),
            "JXL_EFFORT": integer("--jxl-effort", in: 1...9),
            // Defaults of URL options, imgproxy's config for them: a value other than imgproxy's default is the option.
            "STRIP_METADATA": option("sm", default: true), "KEEP_COPYRIGHT": option("kcr", default: true),
            "STRIP_COLOR_PROFILE": option("scp", default: true), "AUTO_ROTATE": option("ar", default: true),
            "ENFORCE_THUMBNAIL": option("eth", default: false), "RETURN_ATTACHMENT": option("att", default: false),
            // imgproxy: 0 (its default) is no limit, where serve keeps its own bound.
            "MAX_RESULT_DIMENSION": Rule(flag: "--max-result-dimension") { name, value throws(Failure) in
                let size = try int(name, value)
                guard size >= 0 else { throw Failure(variable: name, reason: "must be at least 0") }
                return size == 0 ? [] : ["--max-result-dimension", String(size)]
            },
            "OPEN_TELEMETRY_SERVICE_NAME": elsewhere, "OPEN_TELEMETRY_PROTOCOL": elsewhere,  // read by ServeTracing
            // imgproxy 3's exporter timeout in seconds (OTEL_EXPORTER_OTLP_TIMEOUT, in milliseconds, wins).
            "OPEN_TELEMETRY_CONNECTION_TIMEOUT": Rule(flag: nil) { name, value throws(Failure) in
                guard try int(name, value) > 0 else { throw Failure(variable: name, reason: "must be above 0 seconds") }
                return []  // read by ServeTracing
            },
            // Read by ServeTracing: tracecontext continues a traceparent; baggage has no effect (serve sends no
            // trace context onward); none turns extraction off.
            "OPEN_TELEMETRY_PROPAGATORS": Rule(flag: nil) { name, value throws(Failure) in
                for propagator in list(value) where !["tracecontext", "baggage", "none"].contains(propagator) {
                    throw Failure(variable: name, reason: "'\(propagator)' is not built: tracecontext, baggage or none")
                }
                return []
            },
            // gRPC only, as in imgproxy: no effect on OTLP/HTTP, the one protocol serve exports over.
            "OPEN_TELEMETRY_GRPC_INSECURE": Rule(flag: nil) { name, value throws(Failure) in
                _ = try bool(name, value)
                return []
            },
            // It names exported logs, as in imgproxy, and logs are not exported (_ENABLE_LOGS=true is refused).
            "OPEN_TELEMETRY_LOGGER_NAME": elsewhere,
            // PEM text, read by ServeTracing (checked there: only with traces on, as imgproxy reads them).
            "OPEN_TELEMETRY_SERVER_CERT": elsewhere, "OPEN_TELEMETRY_CLIENT_CERT": elsewhere,
            "OPEN_TELEMETRY_CLIENT_KEY": elsewhere,
            "OPEN_TELEMETRY_ENABLE": enable("--open-telemetry"),
            "OPEN_TELEMETRY_ENDPOINT": text("--open-telemetry-endpoint"),
            "WATERMARK_DATA": base64("--watermark-data"),
            "WATERMARK_OPACITY": Rule(flag: "--watermark-opacity") { name, value throws(Failure) in
                let opacity = try number(name, value)
                guard opacity > 0, opacity <= 1 else {
                    throw Failure(variable: name, reason: "must be above 0, at most 1")
                }
                return ["--watermark-opacity", String(opacity)]
            },
            "FALLBACK_IMAGE_DATA": base64("--fallback-image-data")
        ]
        // Recognised, not honoured: accepted only at imgproxy's default.
        for (name, value) in notHonoured { table[name] = unsupported(default: value) }
        return table
    }()

    /// imgproxy's variables serve has no equivalent for yet, with the one value accepted (imgproxy's default, or for
    /// the trace ID generator and propagators what serve does; nil: any value is refused).
    /// docs/imgproxy-environment.md says why each is refused.
    static let notHonoured: [String: String?] = [
        // OpenTelemetry beyond traces over OTLP/HTTP with W3C trace context and random IDs.
        "OPEN_TELEMETRY_ENABLE_METRICS": "false", "OPEN_TELEMETRY_ENABLE_LOGS": "false",
        "OPEN_TELEMETRY_PROPAGATE_EXTERNAL": "false", "OPEN_TELEMETRY_TRACE_ID_GENERATOR": "random"
    ]

    /// `AWS_REGION` from `IMGPROXY_S3_REGION` when the environment has no `AWS_REGION` of its own.
    package static func exportingS3Region(_ environment: [String: String]) -> [String: String] {
        guard let region = environment["IMGPROXY_S3_REGION"], !region.isEmpty, environment["AWS_REGION"] == nil
        else { return [:] }
        return ["AWS_REGION": region]
    }

    // MARK: - Rule makers

    static let elsewhere = Rule(flag: nil) { _, _ in [] }

    static func text(_ flag: String) -> Rule {
        Rule(flag: flag) { _, value in value.isEmpty ? [] : [flag, value] }
    }

    /// A base64 value (imgproxy's `*_DATA`), checked here so a bad one names its variable.
    static func base64(_ flag: String) -> Rule {
        Rule(flag: flag) { name, value throws(Failure) in
            guard !value.isEmpty else { return [] }
            guard decodeBase64(value) != nil else {
                throw Failure(variable: name, reason: "is not base64")
            }
            return [flag, value]
        }
    }

    static func integer(_ flag: String, minimum: Int) -> Rule {
        Rule(flag: flag) { name, value throws(Failure) in
            let number = try int(name, value)
            guard number >= minimum else { throw Failure(variable: name, reason: "must be at least \(minimum)") }
            return [flag, String(number)]
        }
    }

    static func integer(_ flag: String, in range: ClosedRange<Int>) -> Rule {
        Rule(flag: flag) { name, value throws(Failure) in
            let number = try int(name, value)
            guard range.contains(number) else {
                throw Failure(variable: name, reason: "must be \(range.lowerBound) to \(range.upperBound)")
            }
            return [flag, String(number)]
        }
    }

    static func seconds(_ flag: String) -> Rule {
        Rule(flag: flag) { name, value throws(Failure) in
            let seconds = try number(name, value)
            guard seconds > 0 else { throw Failure(variable: name, reason: "must be above 0 seconds") }
            return [flag, String(seconds)]
        }
    }

    static func enable(_ flag: String) -> Rule {
        Rule(flag: flag) { name, value throws(Failure) in try bool(name, value) ? [flag] : [] }
    }

    /// A boolean that is the default of URL option `option`: imgproxy's default adds nothing, the other value
    /// `--default-options option:0|1`.
    static func option(_ option: String, default fallback: Bool) -> Rule {
        Rule(flag: "--default-options") { name, value throws(Failure) in
            let on = try bool(name, value)
            return on == fallback ? [] : ["--default-options", "\(option):\(on ? 1 : 0)"]
        }
    }

    static func networks(_ cidrs: [String]) -> Rule {
        Rule(flag: nil) { name, value throws(Failure) in
            try bool(name, value) ? cidrs.flatMap { ["--allow-network", $0] } : []
        }
    }

    /// Refused unless the value is imgproxy's default (as a boolean when both read as one).
    static func unsupported(default fallback: String?) -> Rule {
        Rule(flag: nil) { name, value throws(Failure) in
            if let fallback {
                if value == fallback || value.isEmpty { return [] }
                if let a = try? bool(name, value), let b = try? bool(name, fallback), a == b { return [] }
            }
            throw Failure(
                variable: name,
                reason: "is set, and dwfetch serve has no equivalent yet (only imgproxy's default); unset it")
        }
    }

    /// `IMGPROXY_BIND`: `host:port`, `:port` (every interface, as imgproxy) or `[v6]:port`.
    static func bind(_ name: String, _ value: String) throws(Failure) -> [String] {
        guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
            (0...65535).contains(port)
        else { throw Failure(variable: name, reason: "'\(value)' is not HOST:PORT") }
        var host = String(value[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return ["--host", host.isEmpty ? "0.0.0.0" : host, "--port", String(port)]
    }

    /// `IMGPROXY_PRESETS_PATH`: one `NAME=OPTIONS` a line, `#` comments and blank lines skipped.
    static func presetFile(_ name: String, _ path: String) throws(Failure) -> [String] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw Failure(variable: name, reason: "cannot read '\(path)'")
        }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }.flatMap { ["--preset", $0] }
    }
}
