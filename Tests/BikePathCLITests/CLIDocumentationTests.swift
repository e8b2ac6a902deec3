import BikePathTestSupport
import Foundation
import Testing

/// docs/cli.md lists every command of `bikepathd --help` and, in its row, every
/// flag that the command's `--help` shows; the old spellings stay out of both.
@Suite(.ownThreads) struct CLIDocumentationTests {
    private func help(_ arguments: [String]) throws -> String {
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        let r = try runProcess(bikepathd, arguments + ["--help"])
        #expect(r.status == 0, "\(arguments): \(r.err)")
        return r.out
    }

    /// The long flags a help text's OPTIONS section lists, one per option line (USAGE names
    /// them too until it is too long, then says `<options>`).
    private func flags(_ help: String) -> Set<String> {
        let options = help.components(separatedBy: "OPTIONS:").dropFirst().joined()
        let found = options.split(separator: "\n").compactMap { line in
            line.firstMatch(of: #/^\s+(?:-[a-zA-Z], )?(--[a-z][a-z0-9-]*)/#).map { String($0.output.1) }
        }
        return Set(found).subtracting(["--help", "--version"])
    }

    /// Rows of the commands table: the command cell's words and the flags cell.
    private func rows() throws -> [(command: String, flags: String)] {
        let doc = try String(contentsOfFile: Paths.root + "/docs/cli.md", encoding: .utf8)
        let section = try #require(doc.components(separatedBy: "## Commands").last?.components(separatedBy: "## Exit codes").first)
        return section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            // Cells split at unescaped pipes (`list\|show` stays in its cell).
            var cells: [String] = [], cell = "", escaped = false
            for c in line {
                if c == "|" && !escaped {
                    cells.append(cell.trimmingCharacters(in: .whitespaces)); cell = ""
                } else if c != "\\" {
                    cell.append(c)
                }
                escaped = c == "\\"
            }
            return (cells[1].replacingOccurrences(of: "`", with: ""), cells.count > 3 ? cells[3] : "")
        }
    }

    /// The names a help text's SUBCOMMANDS section lists.
    private func subcommandNames(_ help: String) -> [String] {
        guard help.contains("SUBCOMMANDS:"), let listed = help.components(separatedBy: "SUBCOMMANDS:").last else { return [] }
        return listed.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { $0.first?.isLowercase == true }
    }

    @Test func everyCommandAndFlagOfTheHelpIsDocumented() throws {
        let top = try help([])
        let listed = try #require(top.components(separatedBy: "SUBCOMMANDS:").last)
        // A command's line starts with two spaces and its name; wrapped help lines start further in.
        let commands = listed.split(separator: "\n").filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }.filter { $0.first?.isLowercase == true }
        let rows = try rows()
        for command in commands {
            #expect(
                rows.contains { $0.command.split(separator: " ").first.map(String.init) == command }, "\(command) is not in docs/cli.md")
        }
        for row in rows where !row.flags.hasPrefix("see ") {
            let words = row.command.split(separator: " ").map(String.init)
            let name = words[0]
            // `drafts list|show|…` and `sync consent|privacy|status`: each subcommand's flags belong in the row.
            let subcommands = words.count > 1 && words[1].contains("|") ? words[1].split(separator: "|").map(String.init) : [nil]
            for sub in subcommands {
                let arguments = [name] + (sub.map { [$0] } ?? (name == "sync" ? ["run"] : []))
                for flag in flags(try help(arguments)) {
                    #expect(
                        row.flags.contains("`\(flag)`"), "\(arguments.joined(separator: " ")): \(flag) is not documented in docs/cli.md")
                }
            }
        }
    }

    /// The other way round: every flag a row lists is one its command takes. docs/cli.md
    /// listed `run --synthetic-hours` long after the flag was gone.
    @Test func everyDocumentedFlagExists() throws {
        for row in try rows() where !row.flags.hasPrefix("see ") {
            let name = String(row.command.split(separator: " ")[0])
            // The command's own flags and those of each of its subcommands (a row covers them all).
            let parent = try help([name])
            var taken = flags(parent)
            for sub in subcommandNames(parent) { taken.formUnion(flags(try help([name, sub]))) }
            let listed = row.flags.matches(of: #/`(--[a-z][a-z0-9-]*)/#).map { String($0.output.1) }
            for flag in listed {
                #expect(taken.contains(flag), "docs/cli.md lists \(flag) for \(row.command), which does not take it")
            }
        }
    }

    /// One spelling of the status socket on every command (`run` had `--status-socket`,
    /// `status`, `tail` and `mark` `--socket`); the old one still works, hidden. And
    /// `diagnose --store PATH` was answered "Did you mean '--no-store'?": `--store`, `run`'s
    /// old spelling of `--db`, is now taken wherever `--db` is.
    @Test func oneSocketSpellingAndTheOldStoreSpellingEverywhere() throws {
        for command in ["run", "status", "tail", "mark"] {
            let shown = flags(try help([command]))
            #expect(shown.contains("--status-socket") && !shown.contains("--socket"), "\(command): \(shown)")
        }
        let bikepathd = try #require(builtExecutable("bikepathd"))
        let dir = try TempDir()
        defer { dir.cleanup() }
        // Nobody answers there: exit 1 and the path in the error, not a usage error (64).
        let old = try runProcess(bikepathd, ["status", "--socket", dir.file("none.sock")])
        #expect(old.status == 1 && old.err.contains("none.sock"), "\(old.status) \(old.err)")
        let diagnose = try runProcess(
            bikepathd,
            [
                "diagnose", "--store", dir.file("none.db"), "--duration", "0.2", "--gpsd-port", "1",
                "--iio-uri", "ip:127.0.0.1:1", "--require", "none",
            ])
        #expect(!diagnose.err.contains("no-store"), "\(diagnose.err)")
        #expect(diagnose.out.contains("none.db"), "the store it was given is the one checked: \(diagnose.out)")
    }

    @Test func oldSpellingsWorkButAreNotShown() throws {
        let run = flags(try help(["run"]))
        #expect(run.isDisjoint(with: ["--store", "--hub-url"]) && run.isSuperset(of: ["--db", "--hub", "--config"]))
        let record = flags(try help(["record"]))
        #expect(record.contains("--force") && !record.contains("--overwrite"))
        #expect(!flags(try help(["decode"])).contains("--json"))
    }

    /// `drafts --help` says where a pending draft goes (to the hub, private, as sync does),
    /// not that nothing leaves before confirmation.
    @Test func draftsHelpSaysWhereAPendingDraftGoes() throws {
        func flat(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let drafts = flat(try help(["drafts"]))
        #expect(drafts.contains("private area on the hub") && drafts.contains("never published"), "\(drafts)")
        let confirm = flat(try help(["drafts", "confirm"]))
        #expect(confirm.contains("published when trip sharing is on"), "\(confirm)")
    }
}
