// DWFetchEngines+Serve: the engines dwfetch-serve links — `serve` and `warm` on DWWebImageServer — as one value its
// main and a test executable with every engine share.
import DWFetchCLI

extension DWFetchEngines {
    /// `dwfetch serve` and `dwfetch warm`; no pixel stage, previewer or demo.
    package static let serveEngines = DWFetchEngines(
        serve: { try ServeRunner.run($0) }, warm: { try WarmRunner.run($0) })
}
