import Testing
@testable import BikePathReview

@Suite(.ownThreads) struct ReviewSessionsTests {
    /// The tokens are 256 random bits as lower-case hex, and none repeats: a session cookie
    /// or CSRF token that could be guessed or collide would let one phone act as another.
    @Test func tokensAre256RandomBitsInHex() async {
        let sessions = ReviewSessions(capacity: 1_000)
        var seen = Set<String>()
        for _ in 0..<500 {
            let s = await sessions.open()
            for token in [s.token, s.csrf] {
                #expect(token.count == 64)
                #expect(token.allSatisfy { "0123456789abcdef".contains($0) })
                seen.insert(token)
            }
        }
        #expect(seen.count == 1_000)
        // Every hex digit in every position turns up: not a counter or a short seed.
        let tokens = Array(seen)
        for position in [0, 31, 63] {
            #expect(Set(tokens.map { Array($0)[position] }).count == 16)
        }
    }

    @Test func theOldestSessionIsForgottenPastCapacity() async {
        let sessions = ReviewSessions(capacity: 2)
        let first = await sessions.open()
        _ = await sessions.open()
        #expect(await sessions.session(token: first.token) == first)
        _ = await sessions.open()
        #expect(await sessions.session(token: first.token) == nil)
    }
}
