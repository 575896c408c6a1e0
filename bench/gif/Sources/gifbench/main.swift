// gifbench decode FILE...   decode every frame of every file to RGBA; prints files, frames, pixels, seconds
// gifbench raw FILE INDEX  write frame INDEX's RGBA bytes to stdout (debugging)
// gifbench scan FILE...    only DWImage(data:) (sniffer + giflib record walk, no pixels): what every download pays
// gifbench crc FILE...      one line per frame: file, index, delay ms, size, CRC-32 of the RGBA bytes
//                           (alpha-0 pixels are already (0,0,0,0)), as bench/gif/pillow_reference.py --crc prints
import DWWebImage
import Foundation

let args = CommandLine.arguments.dropFirst()
if args.first == "raw", args.count == 3, let index = Int(args[args.startIndex + 2]) {
    let image = try DWImage(data: Data(contentsOf: URL(fileURLWithPath: args[args.startIndex + 1])))
    FileHandle.standardOutput.write(Data(image.animatedImage()!.frame(at: index).pixels))
    exit(0)
}
if args.first == "scan" {
    let datas = try args.dropFirst().map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    let start = DispatchTime.now().uptimeNanoseconds
    var frames = 0
    for _ in 0..<10 { for data in datas { frames += try DWImage(data: data).frameCount } }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / 10
    let megabytes = Double(datas.reduce(0) { $0 + $1.count }) / 1e6
    print(String(format: "scan: %.1f MB, %d frames in %.4f s (%.0f MB/s)", megabytes, frames / 10, seconds, megabytes / seconds))
    let start2 = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<10 { for data in datas { frames += try DWAnimatedImage(data: data).frameCount } }
    let seconds2 = Double(DispatchTime.now().uptimeNanoseconds - start2) / 1e9 / 10
    print(String(format: "giflib walk alone: %.4f s (%.0f MB/s)", seconds2, megabytes / seconds2))
    exit(0)
}
guard let mode = args.first, mode == "decode" || mode == "crc" else {
    FileHandle.standardError.write(Data("usage: gifbench decode|crc FILE...\n".utf8))
    exit(2)
}
let files = Array(args.dropFirst())

func monotonic() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
}

func crc32(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    bytes.withUnsafeBufferPointer { buffer in
        crcTable.withUnsafeBufferPointer { table in
            for byte in buffer { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
    }
    return c ^ 0xFFFF_FFFF
}

var frames = 0, pixels = 0
var checksum: UInt64 = 0
let start = monotonic()
for path in files.sorted() {
    do {
        // Mapped, as Pillow streams from the file: the decoder releases what it has read.
        let image = try DWImage(contentsOfFile: path)
        guard let animation = image.animatedImage(bufferCount: 0) else { throw DWWebImageError(.notAnImage, "not a GIF") }
        let name = (path as NSString).lastPathComponent
        animation.forEachFrame { frame in
            frames += 1
            pixels += frame.width * frame.height
            if mode == "crc" {
                let delay = Int((frame.delay * 1000).rounded())
                print(name, frame.index, delay, "\(frame.width)x\(frame.height)", String(format: "%08x", crc32(frame.pixels)))
            } else {
                checksum &+= UInt64(frame.pixels[frame.pixels.count / 2])  // touch the output
            }
            return true
        }
    } catch {
        FileHandle.standardError.write(Data("\(path): \(error)\n".utf8))
        exit(1)
    }
}
let seconds = monotonic() - start
if mode == "decode" {
    print("files=\(files.count) frames=\(frames) pixels=\(pixels) seconds=\(String(format: "%.6f", seconds)) check=\(checksum)")
}
