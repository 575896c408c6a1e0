// DominantColors: k-means over a linear-light sample, seeded from the most populated colour buckets.
import DWWebImage
import Foundation

/// Finds the main colours of a sample: pixels fall into 4096 buckets (4 bits a channel); the `count` seeds are
/// the most populated bucket and then, repeatedly, the populated bucket farthest from the seeds so far
/// (weighted by population, so a speck does not become a colour); ten rounds of k-means over the buckets refine
/// them. Pixels count by their alpha, so transparent areas have no colour. Deterministic.
enum DominantColors {
    private struct Bucket { var r = 0.0, g = 0.0, b = 0.0, weight = 0.0 }

    static func find(in sample: LinearSample, count: Int) -> [DWDominantColor] {
        let buckets = fill(sample)
        let total = buckets.reduce(0) { $0 + $1.weight }
        guard count > 0, total > 0 else { return [] }
        var centres = seeds(buckets, count: count)
        var members = [Double](repeating: 0, count: centres.count)
        for _ in 0..<10 {
            var sums = [Bucket](repeating: Bucket(), count: centres.count)
            for bucket in buckets {
                let k = nearest(bucket, centres)
                sums[k].r += bucket.r * bucket.weight
                sums[k].g += bucket.g * bucket.weight
                sums[k].b += bucket.b * bucket.weight
                sums[k].weight += bucket.weight
            }
            members = sums.map(\.weight)
            for k in centres.indices where sums[k].weight > 0 {
                centres[k] = Bucket(
                    r: sums[k].r / sums[k].weight, g: sums[k].g / sums[k].weight,
                    b: sums[k].b / sums[k].weight, weight: sums[k].weight)
            }
        }
        return centres.indices.filter { members[$0] > 0 }
            .map { k in
                let c = centres[k]
                let color = DWColor(
                    red: UInt8(linearToSRGB(c.r)), green: UInt8(linearToSRGB(c.g)),
                    blue: UInt8(linearToSRGB(c.b)))
                return DWDominantColor(color: color, fraction: members[k] / total)
            }
            .sorted { $0.fraction > $1.fraction }
    }

    /// Populated buckets, each with the mean colour of its pixels and their alpha-weighted count.
    private static func fill(_ sample: LinearSample) -> [Bucket] {
        var grid = [Bucket](repeating: Bucket(), count: 4096)
        for i in 0..<sample.width * sample.height {
            let weight = Double(sample.alpha[i])
            guard weight > 0.01 else { continue }
            let (r, g, b) = (Double(sample.red[i]), Double(sample.green[i]), Double(sample.blue[i]))
            // Bucket by the perceptual (sRGB) value, so dark colours are not lumped together.
            let index = (linearToSRGB(r) >> 4) << 8 | (linearToSRGB(g) >> 4) << 4 | linearToSRGB(b) >> 4
            grid[index].r += r * weight
            grid[index].g += g * weight
            grid[index].b += b * weight
            grid[index].weight += weight
        }
        return grid.compactMap { bucket in
            guard bucket.weight > 0 else { return nil }
            return Bucket(
                r: bucket.r / bucket.weight, g: bucket.g / bucket.weight, b: bucket.b / bucket.weight,
                weight: bucket.weight)
        }
    }

    private static func seeds(_ buckets: [Bucket], count: Int) -> [Bucket] {
        guard let first = buckets.max(by: { $0.weight < $1.weight }) else { return [] }
        var chosen = [first]
        while chosen.count < min(count, buckets.count) {
            let next = buckets.max { a, b in
                score(a, chosen) < score(b, chosen)
            }
            guard let next, score(next, chosen) > 0 else { break }
            chosen.append(next)
        }
        return chosen
    }

    private static func score(_ bucket: Bucket, _ chosen: [Bucket]) -> Double {
        let d = chosen.map { distance(bucket, $0) }.min() ?? 0
        return d * bucket.weight.squareRoot()
    }

    private static func nearest(_ bucket: Bucket, _ centres: [Bucket]) -> Int {
        var best = 0
        var bestDistance = Double.infinity
        for (k, centre) in centres.enumerated() {
            let d = distance(bucket, centre)
            if d < bestDistance { best = k; bestDistance = d }
        }
        return best
    }

    /// Squared distance in gamma-encoded space (closer to how different colours look than linear light).
    private static func distance(_ a: Bucket, _ b: Bucket) -> Double {
        let dr = pow(a.r, 1 / 2.2) - pow(b.r, 1 / 2.2)
        let dg = pow(a.g, 1 / 2.2) - pow(b.g, 1 / 2.2)
        let db = pow(a.b, 1 / 2.2) - pow(b.b, 1 / 2.2)
        return dr * dr + dg * dg + db * db
    }
}
