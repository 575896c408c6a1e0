// dwfetch (first cut): fetch each URL through DWWebImageManager and print one line per URL.
import DWWebImage
import Foundation

let urls = Array(CommandLine.arguments.dropFirst())
let manager = DWWebImageManager.shared
let group = DispatchGroup()
let results = Mutexed<[Int: String]>([:])
for (i, url) in urls.enumerated() {
    group.enter()
    manager.downloadImage(withURL: url) { result in
        let line: String
        switch result {
        case .success(let image):
            line = "ok   \(url) \(image.format.rawValue) \(image.pixelWidth)x\(image.pixelHeight) \(image.data.count) bytes (\(image.source.rawValue))"
        case .failure(let error):
            line = "FAIL \(url) \(error)"
        }
        results.update { $0[i] = line }
        group.leave()
    }
}
group.wait()
let lines = results.value
for i in urls.indices { print(lines[i] ?? "") }
exit(lines.values.contains { $0.hasPrefix("FAIL") } ? 1 : 0)
