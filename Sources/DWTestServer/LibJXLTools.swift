// LibJXLTools: libjxl's own encoder and decoder (Debian libjxl-tools), for tests that need real JPEG XL files.
import Foundation

/// libjxl's `cjxl` and `djxl` on bytes (``ReferenceTool``: blocks the calling thread; throws
/// ``MissingPrerequisite`` when the program is not installed or fails).
public enum LibJXLTools {
    /// A lossless JPEG XL of `png`: the bare codestream, or in the ISO-BMFF container. cjxl writes the container
    /// anyway when the PNG carries EXIF, whose orientation it moves into the codestream's header.
    public static func cjxl(_ png: Data, container: Bool) throws -> Data {
        try ReferenceTool.convert(
            "cjxl", package: "libjxl-tools", input: png, inputExtension: "png", outputExtension: "jxl"
        ) { [$0, $1, "-d", "0", "--container=\(container ? 1 : 0)"] }
    }

    /// `jxl` decoded to PNG by djxl (the reference reader).
    public static func djxl(_ jxl: Data) throws -> Data {
        try ReferenceTool.convert(
            "djxl", package: "libjxl-tools", input: jxl, inputExtension: "jxl", outputExtension: "png"
        ) { [$0, $1] }
    }
}
