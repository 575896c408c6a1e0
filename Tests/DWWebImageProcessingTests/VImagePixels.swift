// VImagePixels: an image's pixels as bytes, for tests that compare two images sample for sample.
import CVips
@testable import DWWebImageProcessing

/// `image` computed and copied out as bytes (band-interleaved, in its own band format; the caller waits while
/// libvips computes it); empty when libvips cannot compute it.
func pixels(_ image: VImage) -> [UInt8] {
    var length = 0
    guard let memory = cvips_write_to_memory(image.pointer, &length) else { return [] }
    defer { cvips_free(memory) }
    return Array(UnsafeRawBufferPointer(start: memory, count: length))
}
