// WarmCommand: `dwfetch warm` — fill serve's result storage before the first visitor (run by dwfetch-serve).
import ArgumentParser
import Foundation

/// `dwfetch warm [serve's flags] -i FILE [--shard K/N]`: for each source of FILE (one a line; blank lines and `#`
/// comments skipped) and each `--preset` other than `default`, the variant `serve` with the same flags answers
/// `pr:NAME` with is made and written to `--result-storage` under the key serve looks up, so that request is a hit:
/// no origin request, no transform. Parsed on the main thread by every dwfetch; run by dwfetch-serve (the thin dwfetch
/// hands it over, as it does `serve`).
package struct WarmCommand: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "warm",
        _superCommandName: "dwfetch",
        abstract: "Write each source's preset variants to serve's --result-storage before the first request.",
        discussion: "Give the flags serve runs with (at least --preset NAME=OPTIONS and --result-storage "
            + "s3://BUCKET/PREFIX, and every flag that changes a variant or the fetch policy: --allow-network, "
            + "--s3-endpoint, qualities, --origins, …): the keys written are the ones serve computes for "
            + "/SIGNATURE/pr:NAME/plain/SOURCE asked without Accept. Every preset given but `default` is warmed. "
            + "Exit status: 0 all stored (or already there), 1 any failed, 2 usage error.")

    package init() {}

    @Option(
        name: [.customShort("i"), .customLong("input-file")],
        help: ArgumentHelp(
            "The sources, one a line (\"-\": standard input).", valueName: "FILE"))
    package var inputFile: String
    @Option(
        name: .customLong("shard"),
        help: ArgumentHelp(
            "Warm only the sources of shard K of N (dwfetch's --shard: N machines split one list).", valueName: "K/N"))
    package var shard: DWShard?
    @OptionGroup(title: "serve's flags") package var serve: ServeOptions

    /// The sources to warm: the file's lines in this shard.
    package func sources() throws -> [String] {
        let text: String
        if inputFile == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let read = try? String(contentsOfFile: inputFile, encoding: .utf8) else {
                throw ValidationError("-i: cannot read \(inputFile)")
            }
            text = read
        }
        return text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") && shard?.contains($0) != false }
    }

    /// The preset names to warm: every `--preset NAME=…` but `default`.
    package var presetNames: [String] {
        serve.imgproxy.presets.compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) }
            .filter { $0 != "default" }
    }

    /// A result storage to write to and a preset to warm are required (exit 2 without).
    package func validate() throws {
        guard serve.resultStorage != nil else { throw ValidationError("warm writes to --result-storage: give one") }
        guard !presetNames.isEmpty else { throw ValidationError("warm needs a --preset NAME=OPTIONS to warm") }
    }
}
