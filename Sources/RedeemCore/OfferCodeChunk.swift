import Crypto

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Many one-time codes of one length side by side in one buffer, for batches drawn, written and hashed a chunk at a time.
public struct OfferCodeChunk: Sendable {
    /// The codes' ASCII symbols, `length` per code.
    public let bytes: [UInt8]
    public let length: Int

    public var count: Int { bytes.count / length }

    /// `count` new codes from the system CSPRNG (see `OfferCode.generate(count:length:using:)`).
    public init(count: Int, length: Int = 16) {
        var rng = BufferedSystemRandom()
        self.init(count: count, length: length, using: &rng)
    }

    public init<R: RandomNumberGenerator>(count: Int, length: Int, using rng: inout R) {
        precondition(OfferCode.lengths.contains(length), "offer codes are 16–18 characters")
        let symbols: [UInt8] = Array(String(OfferCode.alphabet).utf8)
        self.length = length
        bytes = [UInt8](unsafeUninitializedCapacity: count * length) { buffer, initialized in
            var word: UInt64 = 0
            var bytesLeft = 0
            var filled = 0
            while filled < count * length {
                if bytesLeft == 0 {
                    word = rng.next()
                    bytesLeft = 8
                }
                let byte = UInt8(truncatingIfNeeded: word)
                word >>= 8
                bytesLeft -= 1
                // Every byte below 248 (8 × 31) picks a symbol, so each is uniform.
                guard byte < 248 else { continue }
                buffer[filled] = symbols[Int(byte % 31)]
                filled += 1
            }
            initialized = filled
        }
    }

    /// Codes given as canonical strings (tests).
    public init(codes: [String], length: Int) {
        precondition(codes.allSatisfy { $0.utf8.count == length })
        self.length = length
        bytes = codes.flatMap(\.utf8)
    }

    public func code(_ index: Int) -> String {
        String(decoding: bytes[index * length..<(index + 1) * length], as: UTF8.self)
    }

    public var codes: [String] { (0..<count).map(code) }

    /// Writes code `index` at `out` grouped as `OfferCode.grouped` writes it (ABCD-EFGH-JKMN-PQRS; 17 and 18 characters
    /// lengthen the last group); returns how many bytes (`length + 3`).
    @discardableResult
    public func writeGrouped(_ index: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        bytes.withUnsafeBufferPointer { codes in
            let code = codes.baseAddress! + index * length
            var at = out
            for group in 0..<3 {
                at.update(from: code + 4 * group, count: 4)
                at[4] = UInt8(ascii: "-")
                at += 5
            }
            at.update(from: code + 12, count: length - 12)
            return length + 3
        }
    }

    /// Writes code `index` at `out`; returns `length`.
    @discardableResult
    public func writeCode(_ index: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
        bytes.withUnsafeBufferPointer { (out).update(from: $0.baseAddress! + index * length, count: length) }
        return length
    }

    /// Each code's stored hash (`CodeDigest`), in the chunk's order.
    public func digests() -> [CodeDigest] {
        bytes.withUnsafeBytes { raw in
            (0..<count).map { i in CodeDigest(code: UnsafeRawBufferPointer(rebasing: raw[i * length..<(i + 1) * length])) }
        }
    }
}

extension OfferCode {
    /// The key a one-time code (canonical, as `normalize` gives it) is stored and looked up by: `CodeDigest`'s hex.
    public static func storedHash(_ code: String) -> String {
        var code = code
        return code.withUTF8 { CodeDigest(code: UnsafeRawBufferPointer($0)) }.hex
    }
}

/// A one-time code's stored hash: the first 128 bits of its SHA-256, as two big-endian words, ordered as its bytes (and
/// its hex) are. Its hex is the first 32 characters of `SecretToken.hash(code)` (migration 30 cut the stored hashes so).
///
/// 128 bits are more than enough: a 16-character code carries only log2(31^16) ≈ 79 bits. Two of n distinct codes share
/// a hash with probability about n²/2^129 (10^-21 for a billion codes), and then the primary key refuses the second and
/// the batch is drawn again, as for two equal codes. A guess that is no code but hits one of n stored hashes succeeds
/// with probability n/2^128 per try, 2^-49 times the chance of guessing one of the codes themselves.
public struct CodeDigest: Hashable, Comparable, Sendable {
    public var high: UInt64, low: UInt64

    public init(code: UnsafeRawBufferPointer) {
        var hasher = SHA256()
        hasher.update(bufferPointer: code)
        (high, low) = hasher.finalize().withUnsafeBytes { raw in
            (
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            )
        }
    }

    public static func < (l: CodeDigest, r: CodeDigest) -> Bool {
        l.high != r.high ? l.high < r.high : l.low < r.low
    }

    /// `digests` in ascending order, as `sorted()` gives them, several times faster for SHA-256 output: a counting sort
    /// on the top bits (about one digest per bucket, since digests are uniform) and an insertion pass for the rest.
    public static func sorted(_ digests: [CodeDigest]) -> [CodeDigest] {
        let n = digests.count
        guard n > 1 else { return digests }
        let bits = min(16, Int.bitWidth - n.leadingZeroBitCount)
        let shift = UInt64(64 - bits)
        var starts = [Int](repeating: 0, count: (1 << bits) + 1)
        for d in digests { starts[Int(d.high >> shift) + 1] += 1 }
        for b in 1..<starts.count { starts[b] += starts[b - 1] }
        var out = [CodeDigest](unsafeUninitializedCapacity: n) { buffer, initialized in
            starts.withUnsafeMutableBufferPointer { starts in
                for d in digests {
                    let b = Int(d.high >> shift)
                    (buffer.baseAddress! + starts[b]).initialize(to: d)
                    starts[b] += 1
                }
            }
            initialized = n
        }
        out.withUnsafeMutableBufferPointer { a in
            for i in 1..<n where a[i] < a[i - 1] {
                let d = a[i]
                var j = i
                while j > 0 && d < a[j - 1] {
                    a[j] = a[j - 1]
                    j -= 1
                }
                a[j] = d
            }
        }
        return out
    }

    /// Lowercase hex, 32 characters.
    public var hex: String {
        String(unsafeUninitializedCapacity: 32) { out in
            writeHex(to: out.baseAddress!)
            return 32
        }
    }

    /// Writes the 32 characters of `hex` at `out`.
    public func writeHex(to out: UnsafeMutablePointer<UInt8>) {
        let digits: StaticString = "0123456789abcdef"
        let d = digits.utf8Start
        for i in 0..<16 {
            out[i] = d[Int((high >> UInt64(60 - 4 * i)) & 0xf)]
            out[16 + i] = d[Int((low >> UInt64(60 - 4 * i)) & 0xf)]
        }
    }
}

/// The system CSPRNG read 4 KB at a time: one system call per 512 draws rather than one per draw, for drawing many
/// codes. Holds unused random bytes in memory until drawn.
public struct BufferedSystemRandom: RandomNumberGenerator {
    private var buffer = [UInt64](repeating: 0, count: 512)
    private var index = 512
    #if canImport(Glibc)
    /// Open for the process's life (the kernel's CSPRNG, as `SystemRandomNumberGenerator` reads it through getrandom).
    private static let urandom: Int32 = {
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        precondition(fd >= 0, "cannot open /dev/urandom")
        return fd
    }()
    #endif

    public init() {}

    public mutating func next() -> UInt64 {
        if index == buffer.count { refill() }
        defer { index += 1 }
        return buffer[index]
    }

    private mutating func refill() {
        buffer.withUnsafeMutableBytes { raw in
            #if canImport(Glibc)
            var filled = 0
            while filled < raw.count {
                let n = read(Self.urandom, raw.baseAddress! + filled, raw.count - filled)
                if n > 0 {
                    filled += n
                } else if n == 0 || errno != EINTR {
                    fatalError("reading /dev/urandom failed: errno \(errno)")
                }
            }
            #else
            arc4random_buf(raw.baseAddress!, raw.count)
            #endif
        }
        index = 0
    }
}
