import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathStore

/// `bikepathd drafts` takes what a rider can type: the list number, a
/// short prefix in either case, `#N` for an obstacle; `list` shows the number and
/// the date, `show` each obstacle's clock time and distance along the path.
@Suite(.ownThreads) struct DraftsCLIReferenceTests {
    @Test func numbersAndPrefixesWorkInTheCLI() async throws {
        let (bin, dir, db) = try storeWithTwoRides()
        defer { dir.cleanup() }
        let store = try Store.open(path: db, mode: .readOnly)
        let ids = try await store.listDrafts().map(\.id)
        let list = try await runProcess(bin, ["drafts", "list", "--db", db])
        let lines = list.out.split(separator: "\n")
        #expect(
            lines.count == 2 && lines[0].hasPrefix("  1  \(ids[0])  2026-09-21 14:30:00") && lines[1].hasPrefix("  2  \(ids[1])"),
            "\(list.out)")
        let show = try await runProcess(bin, ["drafts", "show", "2", "--db", db])
        #expect(show.status == 0 && show.out.hasPrefix("draft \(ids[1])"), "\(show.err)")
        // The 2nd ride starts at 14:37:00.
        #expect(show.out.contains("+30.0s at 14:37:30, 0.") && show.out.contains("km along the path"), "\(show.out)")
        let edit = try await runProcess(bin, ["drafts", "edit", String(ids[0].prefix(5)).lowercased(), "--db", db, "--drop", "#1"])
        #expect(edit.status == 0, "\(edit.err)")
        let ranked = try #require(try await store.draft(ids[0]).obstacles.first { $0.reviewRank == 1 })
        #expect(ranked.dropped)
        // A clock time as `show` prints it: the first ride starts at 14:30:00, so 14:31:40 is 100 s in.
        let clock = try await runProcess(bin, ["drafts", "edit", "1", "--db", db, "--add", "bump@14:31:40"])
        #expect(clock.status == 0, "\(clock.err)")
        let added = try #require(try await store.draft(ids[0]).obstacles.first { $0.origin == "rider" })
        let start = try await store.draft(ids[0]).trip.startTimeNanoseconds
        #expect(added.timeNanoseconds == start + 100_000_000_000)
        let late = try await runProcess(bin, ["drafts", "edit", "1", "--db", db, "--add", "bump@18:00"])
        #expect(late.status == 1 && late.err.contains("lies outside the trip"), "\(late.err)")
        // Digits that are no number of the list are an id prefix; four of them name nothing here.
        let missing = try await runProcess(bin, ["drafts", "confirm", "7777", "--db", db])
        #expect(
            missing.status == 1
                && missing.err.contains("no draft number 7777 and no id starting with 7777: `bikepathd drafts list` shows 2"),
            "\(missing.err)")
        let confirm = try await runProcess(bin, ["drafts", "confirm", "1", "--db", db])
        #expect(confirm.status == 0 && confirm.out.contains(ids[0]), "\(confirm.err)")
    }
}
