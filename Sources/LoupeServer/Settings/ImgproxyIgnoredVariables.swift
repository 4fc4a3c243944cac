/// The `IMGPROXY_*` variables Loupe does not take, each with the reason it gives at start-up.
/// Names are without the `IMGPROXY_` prefix. (The variables Loupe takes, or takes only for some
/// values, are ``ImgproxyEnvironment/rules``.)
enum ImgproxyIgnoredVariables {
    /// Groups of variables ignored for one reason.
    static let groups: [(reason: String, names: [String])] = [
        ("cloud storage sources other than S3 (Google Cloud Storage's own API, Azure Blob Storage, OpenStack Swift) are not supported, nor S3 access points, assumed roles, client-side decryption or multi-region routing: Loupe loads http(s), local:// and s3:// sources (Google Cloud Storage through its S3-compatible API)", [
            "ABS_ALLOWED_BUCKETS", "ABS_DENIED_BUCKETS", "ABS_ENDPOINT", "ABS_KEY", "ABS_NAME", "USE_ABS",
            "GCS_ALLOWED_BUCKETS", "GCS_DENIED_BUCKETS", "GCS_ENDPOINT", "GCS_KEY", "USE_GCS", "S3_ACCESS_POINTS",
            "S3_ASSUME_ROLE_ARN", "S3_ASSUME_ROLE_EXTERNAL_ID", "S3_USE_DECRYPTION_CLIENT", "S3_MULTI_REGION",
            "SWIFT_ALLOWED_BUCKETS", "SWIFT_API_KEY", "SWIFT_AUTH_URL", "SWIFT_AUTH_VERSION",
            "SWIFT_CONNECT_TIMEOUT_SECONDS", "SWIFT_DENIED_BUCKETS", "SWIFT_DOMAIN", "SWIFT_TENANT",
            "SWIFT_TIMEOUT_SECONDS", "SWIFT_USERNAME", "USE_SWIFT",
        ]),
        ("error reporting services are not supported: Loupe logs failures as JSON on standard error", [
            "AIRBRAKE_ENVIRONMENT", "AIRBRAKE_PROJECT_ID", "AIRBRAKE_PROJECT_KEY", "BUGSNAG_KEY", "BUGSNAG_STAGE",
            "HONEYBADGER_ENV", "HONEYBADGER_KEY", "SENTRY_DSN", "SENTRY_ENVIRONMENT", "SENTRY_RELEASE",
            "REPORT_DOWNLOADING_ERRORS", "REPORT_IO_ERRORS",
        ]),
        ("monitoring integrations are not supported: Loupe serves Prometheus metrics at /metrics on the service's port", [
            "CLOUD_WATCH_NAMESPACE", "CLOUD_WATCH_REGION", "CLOUD_WATCH_SERVICE_NAME", "DATADOG_ENABLE",
            "DATADOG_ENABLE_ADDITIONAL_METRICS", "DATADOG_PROPAGATE_EXTERNAL", "NEW_RELIC_APP_NAME", "NEW_RELIC_KEY",
            "NEW_RELIC_LABELS", "NEW_RELIC_PROPAGATE_EXTERNAL", "OPEN_TELEMETRY_CLIENT_CERT",
            "OPEN_TELEMETRY_CLIENT_KEY", "OPEN_TELEMETRY_ENABLE", "OPEN_TELEMETRY_ENABLE_LOGS",
            "OPEN_TELEMETRY_ENABLE_METRICS", "OPEN_TELEMETRY_LOGGER_NAME", "OPEN_TELEMETRY_PROPAGATE_EXTERNAL",
            "OPEN_TELEMETRY_SERVER_CERT", "OPEN_TELEMETRY_TRACE_ID_GENERATOR", "PROMETHEUS_BIND",
            "PROMETHEUS_NAMESPACE",
        ]),
        ("Loupe logs JSON lines on standard error, with no level or syslog setting", [
            "LOG_FORMAT", "LOG_LEVEL", "LOG_MEM_STATS", "SYSLOG_ADDRESS", "SYSLOG_ENABLE", "SYSLOG_LEVEL",
            "SYSLOG_NETWORK", "SYSLOG_TAG",
        ]),
        ("Loupe reads its settings from its own environment and flags only", [
            "ENV_AWS_SECRET_ID", "ENV_AWS_SECRET_REGION", "ENV_AWS_SECRET_VERSION_ID", "ENV_AWS_SECRET_VERSION_STAGE",
            "ENV_AWS_SSM_PARAMETERS_PATH", "ENV_AWS_SSM_PARAMETERS_REGION", "ENV_GCP_KEY", "ENV_GCP_SECRET_ID",
            "ENV_GCP_SECRET_PROJECT_ID", "ENV_GCP_SECRET_VERSION_ID", "ENV_LOCAL_FILE_PATH",
        ]),
        ("Loupe has no such encoder setting: it encodes with fixed settings per format", [
            "AVIF_SPEED", "JXL_EFFORT", "WEBP_EFFORT", "WEBP_PRESET", "JPEG_PROGRESSIVE", "PNG_INTERLACED",
            "PNG_QUANTIZE", "PNG_QUANTIZATION_COLORS",
        ]),
        ("Loupe has no such switch: SVG sources are always read within librsvg's limits and the pixel limits", ["SVG_UNLIMITED"]),
        ("Loupe has no such switch: TIFF and PNG sources are always read with their allocations bounded by the pixel limits", [
            "TIFF_UNLIMITED", "PNG_UNLIMITED",
        ]),
        ("cookies and headers are not passed through to sources", [
            "COOKIE_BASE_URL", "COOKIE_PASSTHROUGH", "COOKIE_PASSTHROUGH_ALL", "CACHE_CONTROL_PASSTHROUGH",
        ]),
        ("Loupe's HTTP server has no such timeout: --request-timeout bounds a whole request", [
            "READ_REQUEST_TIMEOUT", "WRITE_RESPONSE_TIMEOUT", "KEEP_ALIVE_TIMEOUT",
            "CLIENT_KEEP_ALIVE_TIMEOUT",
        ]),
        ("Loupe has no such processing setting", [
            "DISABLE_SHRINK_ON_LOAD", "KEEP_COPYRIGHT", "STRIP_COLOR_PROFILE",
            "USE_LINEAR_COLORSPACE", "SKIP_PROCESSING_FORMATS", "PREFERRED_FORMATS", "MAX_ANIMATION_FRAME_RESOLUTION",
            "UNSHARP_MASKING_MODE", "UNSHARP_MASKING_WEIGHT", "UNSHARP_MASKING_DIVIDER",
        ]),
        ("libvips and Go runtime settings do not apply to Loupe", [
            "VIPS_CACHE_TRACE", "VIPS_LEAK_CHECK", "FREE_MEMORY_INTERVAL", "PPROF_BIND",
        ]),
        ("removed from imgproxy long ago; its successor is IMGPROXY_MAX_SRC_RESOLUTION", [
            "MAX_SRC_DIMENSION",
        ]),
    ]

    /// Variables ignored each for a reason of its own.
    static let single: [String: String] = [
        "SOURCE_URL_QUERY_SEPARATOR": "a plain source's query is kept as part of its URL",
        "SECRET": "an Authorization secret for every request is not supported (POST /batch has LOUPE_BATCH_TOKEN)",
        "DEVELOPMENT_ERRORS_MODE": "Loupe's errors are always JSON with a kind and a message",
        "ENABLE_DEBUG_HEADERS": "debug headers are not sent",
        "FAIL_ON_DEPRECATION": "Loupe has no deprecated options",
        "GRACEFUL_STOP_TIMEOUT": "Loupe's graceful stop takes --drain-delay plus --request-timeout",
        "HEALTH_CHECK_PATH": "Loupe's health check is at /health only",
        "IGNORE_SSL_VERIFICATION": "Loupe always verifies sources' TLS certificates",
        "MAX_CLIENTS": "Loupe does not limit connections; --queue bounds the requests waiting for a worker",
        "MAX_REDIRECTS": "Loupe follows at most 5 redirects (not configurable)",
        "SET_CANONICAL_HEADER": "Link rel=canonical headers are not sent",
        "SO_REUSEPORT": "Loupe binds without SO_REUSEPORT",
        "TRUSTED_SIGNATURES": "trusted signatures are not supported: every signature is checked",
        "USER_AGENT": "the User-Agent of source requests is not configurable",
        "GZIP_COMPRESSION": "removed from imgproxy; Loupe does not compress responses",
        "MAX_GIF_FRAMES": "removed from imgproxy; its successor is IMGPROXY_MAX_ANIMATION_FRAMES",
    ]

    /// The variables imgproxy 4 removed (its changelog, 4.0.0), each with what imgproxy names in
    /// its place and what Loupe does with that; imgproxy 4 ignores them, and so does Loupe.
    static let removedInImgproxy4: [String: String] = [
        "CONCURRENCY": "its successor is IMGPROXY_WORKERS, which Loupe takes",
        "WRITE_TIMEOUT": "its successor is IMGPROXY_TIMEOUT, which Loupe takes",
        "READ_TIMEOUT": "its successor is IMGPROXY_READ_REQUEST_TIMEOUT; Loupe has no such timeout: --request-timeout bounds a whole request",
        "MAX_SVG_CHECK_BYTES": "obsolete, without a successor",
        "DOWNLOAD_BUFFER_SIZE": "obsolete, without a successor",
        "BUFFER_POOL_CALIBRATION_THRESHOLD": "obsolete, without a successor",
        "OPEN_TELEMETRY_ENDPOINT": "its successor is OTEL_EXPORTER_OTLP_ENDPOINT; Loupe exports no OpenTelemetry data",
        "OPEN_TELEMETRY_PROTOCOL": "its successor is OTEL_EXPORTER_OTLP_PROTOCOL; Loupe exports no OpenTelemetry data",
        "OPEN_TELEMETRY_GRPC_INSECURE": "its successor is an http:// OTEL_EXPORTER_OTLP_ENDPOINT; Loupe exports no OpenTelemetry data",
        "OPEN_TELEMETRY_SERVICE_NAME": "its successor is OTEL_SERVICE_NAME; Loupe exports no OpenTelemetry data",
        "OPEN_TELEMETRY_PROPAGATORS": "its successor is OTEL_PROPAGATORS; Loupe exports no OpenTelemetry data",
        "OPEN_TELEMETRY_CONNECTION_TIMEOUT": "its successor is OTEL_EXPORTER_OTLP_TIMEOUT; Loupe exports no OpenTelemetry data",
        "UNSHARPENING_MODE": "its successor is IMGPROXY_UNSHARP_MASKING_MODE; Loupe has no unsharp masking setting",
        "UNSHARPENING_WEIGHT": "its successor is IMGPROXY_UNSHARP_MASKING_WEIGHT; Loupe has no unsharp masking setting",
        "UNSHARPENING_DIVIDER": "its successor is IMGPROXY_UNSHARP_MASKING_DIVIDER; Loupe has no unsharp masking setting",
    ]

    /// Every variable named here, with `IMGPROXY_`.
    static var names: [String] {
        (groups.flatMap(\.names) + single.keys + removedInImgproxy4.keys).map { "IMGPROXY_" + $0 }
    }

    /// Why `name` (a full `IMGPROXY_` name) is ignored.
    static func reason(for name: String) -> String {
        let short = String(name.dropFirst("IMGPROXY_".count))
        if let reason = single[short] { return reason }
        if let successor = removedInImgproxy4[short] { return "removed in imgproxy 4, which ignores it too (\(successor))" }
        if let group = groups.first(where: { $0.names.contains(short) }) { return group.reason }
        return "not an imgproxy setting Loupe knows of"
    }
}
