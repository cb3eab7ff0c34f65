import Foundation

/// A decoded 8-bit RGB or RGBA PNG (what a browser's screenshot writes), for tests that look at
/// pixels. The zlib stream is inflated here (RFC 1950/1951) so that no image library is needed.
public struct PNGImage {
    public let width: Int
    public let height: Int
    /// Red, green, blue per pixel, row by row.
    public let rgb: [UInt8]

    public enum DecodeError: Error, CustomStringConvertible {
        case notPNG
        case unsupported(String)
        case corrupt(String)

        public var description: String {
            switch self {
            case .notPNG: "not a PNG file"
            case .unsupported(let what): "unsupported PNG: \(what)"
            case .corrupt(let what): "corrupt PNG: \(what)"
            }
        }
    }

    public init(contentsOf url: URL) throws {
        try self.init(data: [UInt8](try Data(contentsOf: url)))
    }

    public init(data: [UInt8]) throws {
        guard data.count > 8, data[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw DecodeError.notPNG }
        func u32(_ at: Int) -> Int { Int(data[at]) << 24 | Int(data[at + 1]) << 16 | Int(data[at + 2]) << 8 | Int(data[at + 3]) }
        var offset = 8
        var width = 0
        var height = 0
        var channels = 0
        var compressed: [UInt8] = []
        while offset + 8 <= data.count {
            let length = u32(offset)
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            let body = offset + 8
            guard body + length <= data.count else { throw DecodeError.corrupt("chunk \(type) runs past the end") }
            switch type {
            case "IHDR":
                width = u32(body)
                height = u32(body + 4)
                guard data[body + 8] == 8, data[body + 12] == 0 else { throw DecodeError.unsupported("bit depth \(data[body + 8]) or interlacing") }
                switch data[body + 9] {
                case 2: channels = 3
                case 6: channels = 4
                default: throw DecodeError.unsupported("colour type \(data[body + 9])")
                }
            case "IDAT":
                compressed += data[body..<body + length]
            default:
                break
            }
            offset = body + length + 4
            if type == "IEND" { break }
        }
        guard width > 0, height > 0, channels > 0 else { throw DecodeError.corrupt("no IHDR") }
        let raw = try Inflate.zlib(compressed)
        let stride = width * channels
        guard raw.count >= height * (stride + 1) else { throw DecodeError.corrupt("\(raw.count) bytes of pixels for \(width)×\(height)") }
        var pixels = [UInt8](repeating: 0, count: height * stride)
        for row in 0..<height {
            let filter = raw[row * (stride + 1)]
            let source = row * (stride + 1) + 1
            let line = row * stride
            for i in 0..<stride {
                let a = i >= channels ? Int(pixels[line + i - channels]) : 0
                let b = row > 0 ? Int(pixels[line - stride + i]) : 0
                let c = row > 0 && i >= channels ? Int(pixels[line - stride + i - channels]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a)
                    let pb = abs(p - b)
                    let pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
                default: throw DecodeError.corrupt("filter \(filter) on row \(row)")
                }
                pixels[line + i] = UInt8(truncatingIfNeeded: Int(raw[source + i]) + predictor)
            }
        }
        self.width = width
        self.height = height
        if channels == 3 {
            rgb = pixels
        } else {
            var out = [UInt8](repeating: 0, count: width * height * 3)
            for p in 0..<(width * height) {
                out[p * 3] = pixels[p * 4]
                out[p * 3 + 1] = pixels[p * 4 + 1]
                out[p * 3 + 2] = pixels[p * 4 + 2]
            }
            rgb = out
        }
    }

    /// The pixel at (`x`, `y`) as `0xRRGGBB`.
    public func colour(x: Int, y: Int) -> Int {
        let i = (y * width + x) * 3
        return Int(rgb[i]) << 16 | Int(rgb[i + 1]) << 8 | Int(rgb[i + 2])
    }

    /// Where pixels of exactly `colour` (`0xRRGGBB`) are: their count and bounding box.
    public func find(_ colour: Int) -> (count: Int, minX: Int, minY: Int, maxX: Int, maxY: Int) {
        var count = 0
        var minX = Int.max
        var minY = Int.max
        var maxX = -1
        var maxY = -1
        for y in 0..<height {
            for x in 0..<width where self.colour(x: x, y: y) == colour {
                count += 1
                minX = min(minX, x)
                maxX = max(maxX, x)
                minY = min(minY, y)
                maxY = max(maxY, y)
            }
        }
        return (count, minX, minY, maxX, maxY)
    }
}

/// DEFLATE decoding (RFC 1951) of a zlib stream (RFC 1950), after Mark Adler's `puff`.
enum Inflate {
    struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int] = []

        init(lengths: [Int]) {
            for length in lengths { counts[length] += 1 }
            counts[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            symbols = [Int](repeating: 0, count: lengths.count)
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    struct Bits {
        let bytes: [UInt8]
        var position = 0
        var buffer = 0
        var count = 0

        mutating func take(_ n: Int) throws -> Int {
            while count < n {
                guard position < bytes.count else { throw PNGImage.DecodeError.corrupt("deflate stream ends early") }
                buffer |= Int(bytes[position]) << count
                position += 1
                count += 8
            }
            let value = buffer & ((1 << n) - 1)
            buffer >>= n
            count -= n
            return value
        }

        mutating func decode(_ h: Huffman) throws -> Int {
            var code = 0
            var first = 0
            var index = 0
            for length in 1...15 {
                code |= try take(1)
                let count = h.counts[length]
                if code - first < count { return h.symbols[index + code - first] }
                index += count
                first = (first + count) << 1
                code <<= 1
            }
            throw PNGImage.DecodeError.corrupt("bad Huffman code")
        }
    }

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
    ]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    static func zlib(_ data: [UInt8]) throws -> [UInt8] {
        guard data.count > 2, data[0] & 0x0F == 8 else { throw PNGImage.DecodeError.corrupt("not a zlib stream") }
        var bits = Bits(bytes: Array(data.dropFirst(2)))
        var out: [UInt8] = []
        out.reserveCapacity(data.count * 8)
        var last = 0
        repeat {
            last = try bits.take(1)
            switch try bits.take(2) {
            case 0:
                bits.buffer = 0
                bits.count = 0
                guard bits.position + 4 <= bits.bytes.count else { throw PNGImage.DecodeError.corrupt("stored block header") }
                let length = Int(bits.bytes[bits.position]) | Int(bits.bytes[bits.position + 1]) << 8
                bits.position += 4
                guard bits.position + length <= bits.bytes.count else { throw PNGImage.DecodeError.corrupt("stored block") }
                out += bits.bytes[bits.position..<bits.position + length]
                bits.position += length
            case 1:
                let lengths =
                    [Int](repeating: 8, count: 144) + [Int](repeating: 9, count: 112) + [Int](repeating: 7, count: 24) + [Int](repeating: 8, count: 8)
                try codes(&bits, &out, Huffman(lengths: lengths), Huffman(lengths: [Int](repeating: 5, count: 30)))
            case 2:
                let literalCount = try bits.take(5) + 257
                let distanceCount = try bits.take(5) + 1
                let codeCount = try bits.take(4) + 4
                let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
                var codeLengths = [Int](repeating: 0, count: 19)
                for i in 0..<codeCount { codeLengths[order[i]] = try bits.take(3) }
                let lengthCode = Huffman(lengths: codeLengths)
                var lengths: [Int] = []
                while lengths.count < literalCount + distanceCount {
                    let symbol = try bits.decode(lengthCode)
                    switch symbol {
                    case 0..<16: lengths.append(symbol)
                    case 16:
                        guard let previous = lengths.last else { throw PNGImage.DecodeError.corrupt("repeat with no length") }
                        lengths += [Int](repeating: previous, count: 3 + (try bits.take(2)))
                    case 17: lengths += [Int](repeating: 0, count: 3 + (try bits.take(3)))
                    default: lengths += [Int](repeating: 0, count: 11 + (try bits.take(7)))
                    }
                }
                try codes(&bits, &out, Huffman(lengths: Array(lengths[0..<literalCount])), Huffman(lengths: Array(lengths[literalCount...])))
            default:
                throw PNGImage.DecodeError.corrupt("block type 3")
            }
        } while last == 0
        return out
    }

    static func codes(_ bits: inout Bits, _ out: inout [UInt8], _ literals: Huffman, _ distances: Huffman) throws {
        while true {
            let symbol = try bits.decode(literals)
            if symbol < 256 {
                out.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let index = symbol - 257
                guard index < 29 else { throw PNGImage.DecodeError.corrupt("length symbol \(symbol)") }
                let length = lengthBase[index] + (try bits.take(lengthExtra[index]))
                let d = try bits.decode(distances)
                guard d < 30 else { throw PNGImage.DecodeError.corrupt("distance symbol \(d)") }
                let distance = distanceBase[d] + (try bits.take(distanceExtra[d]))
                guard distance <= out.count else { throw PNGImage.DecodeError.corrupt("distance past the start") }
                let start = out.count - distance
                for i in 0..<length { out.append(out[start + i]) }
            }
        }
    }
}
