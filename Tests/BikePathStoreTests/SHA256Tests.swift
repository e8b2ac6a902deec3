import Testing
@testable import BikePathStore

@Suite(.ownThreads) struct SHA256Tests {
    // FIPS 180-4 examples (NIST CSRC "SHA256.pdf", "SHA2_Additional.pdf").
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func nistVectors(message: String, digest: String) {
        #expect(SHA256Hasher.hash(Array(message.utf8)).hexString == digest)
    }

    @Test func incrementalEqualsOneShot() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 31) }
        var h = SHA256Hasher()
        h.update(bytes[0..<63])
        h.update(bytes[63..<64])
        h.update(bytes[64...])
        #expect(h.finalize() == SHA256Hasher.hash(bytes))
    }

    // FIPS 180-4's long message: one million "a", hashed in pieces that straddle its blocks.
    @Test func millionAs() {
        var h = SHA256Hasher()
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { h.update(piece) }
        #expect(h.finalize().hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func finalizeStartsAgainEmpty() {
        var h = SHA256Hasher()
        h.update(Array("abc".utf8))
        _ = h.finalize()
        #expect(h.finalize() == SHA256Hasher.hash([UInt8]()))
    }
}

@Suite(.ownThreads) struct DeviceIDTests {
    @Test func idsAreVersion4UUIDsAndDistinct() {
        let ids = (0..<1000).map { _ in DeviceID.make() }
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(20) {
            let parts = id.split(separator: "-").map(\.count)
            #expect(parts == [8, 4, 4, 4, 12])
            #expect(Array(id)[14] == "4")
            #expect("89AB".contains(Array(id)[19]))
            #expect(id.allSatisfy { "0123456789ABCDEF-".contains($0) })
        }
    }
}
