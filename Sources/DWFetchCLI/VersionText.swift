// VersionText: what `dwfetch --version` prints — dwfetch, then every library it runs on, as `curl --version` does.
internal import CVipsVersion
import DWWebImage

enum VersionText {
    /// dwfetch's own version (bump on release).
    static let dwfetch = "0.1.0"

    /// The version the parser's configuration carries: all of ``text`` when the arguments name `--version` (the only
    /// way ArgumentParser prints it), else its first line — ``text`` opens libcurl to ask its version, which a fetch
    /// answered from the cache never needs (docs/performance.md, "Start-up").
    static func forParser(arguments: [String] = CommandLine.arguments) -> String {
        arguments.dropFirst().contains("--version") ? text : "dwfetch \(dwfetch) (DWWebImage)"
    }

    /// The lines of `dwfetch --version`, read from the libraries at run time; libvips' from the headers
    /// dwfetch-pixels was built with (reading it at run time would load libvips and its ~70 libraries).
    static var text: String {
        let curl = DWLibraryVersions.curl
        var lines = ["dwfetch \(dwfetch) (DWWebImage)"]
        lines.append((["libcurl \(curl.version)"] + curl.libraries).joined(separator: " "))
        lines.append("  Protocols: " + curl.protocols.joined(separator: " "))
        lines.append("  Features: " + curl.features.joined(separator: " "))
        if let file = curl.defaultCAFile { lines.append("  CA file: \(file)") }
        if let path = curl.defaultCAPath { lines.append("  CA path: \(path)") }
        lines.append("giflib \(DWLibraryVersions.giflib)")
        lines.append("zlib \(DWLibraryVersions.zlib)")
        lines.append("libvips \(String(cString: dw_vips_header_version()))")  // dwfetch-pixels' engine
        return lines.joined(separator: "\n")
    }
}
