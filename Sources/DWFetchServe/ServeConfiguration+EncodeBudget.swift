// ServeConfiguration+EncodeBudget: `--encode-budget` and `--background-encodes` onto DWServeConfiguration.
import ArgumentParser
import DWFetchCLI
import DWWebImage
import DWWebImageServer

extension DWServeConfiguration {
    /// Sets ``encodeBudget`` from `options`; a budget with no AVIF or JPEG XL for `Accept` to pick (no `--auto-avif`,
    /// `--auto-jxl`, `--auto-format` or `--enforce-avif`/`--enforce-jxl`) is refused, since it would change nothing.
    mutating func applyEncodeBudget(_ options: ServeEncodeBudgetOptions) throws {
        encodeBudget.backgroundEncodes = options.backgroundEncodes
        guard let budget = options.encodeBudget else { return }
        let formats = imgproxy.acceptFormats
        let pickable = formats.auto.union(formats.enforce).union(autoFormat ? [.avif, .webp] : [])
        guard pickable.contains(.avif) || pickable.contains(.jxl) else {
            throw ValidationError(
                "--encode-budget weighs the AVIF and JPEG XL encodes Accept picks: give --auto-avif, "
                    + "--auto-jxl or --auto-format")
        }
        encodeBudget.budget = budget
    }
}
