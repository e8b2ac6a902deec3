import BikePathTestSupport
import Foundation
import Testing

/// Every link of README.md and docs/*.md to a file of the repository must name a file that
/// exists, and its `#anchor` a heading there (GitHub's slugs) or an explicit `<a id>`: a heading
/// renamed without its links leaves a reader at the top of the page.
@Suite(.ownThreads) struct MarkdownLinkTests {
    /// A link as written: the file it is in, its line, and its target.
    struct Link: CustomStringConvertible {
        let file: String, line: Int, target: String
        var description: String { "\(file):\(line): \(target)" }
    }

    static let documents: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot + "/docs")) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }()

    /// The lines outside fenced code blocks, with their numbers; `blankingCode`: inline code spans
    /// blanked out (a link written as code is no link).
    static func prose(_ text: String, blankingCode: Bool = true) -> [(Int, String)] {
        var fenced = false, out: [(Int, String)] = []
        for (i, line) in text.components(separatedBy: "\n").enumerated() {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                fenced.toggle()
                continue
            }
            if fenced { continue }
            out.append((i + 1, blankingCode ? line.replacingOccurrences(of: "`[^`]*`", with: "``", options: .regularExpression) : line))
        }
        return out
    }

    /// Markdown links `[text](target)` and HTML `src`/`href` attributes.
    static func links(in file: String) throws -> [Link] {
        let text = try String(contentsOfFile: packageRoot + "/" + file, encoding: .utf8)
        let patterns = [#"\]\(([^)\s]+)\)"#, #"(?:src|href)="([^"]+)""#]
        var found: [Link] = []
        for (number, line) in prose(text) {
            for pattern in patterns {
                let regex = try NSRegularExpression(pattern: pattern)
                for m in regex.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                    guard let r = Range(m.range(at: 1), in: line) else { continue }
                    found.append(Link(file: file, line: number, target: String(line[r])))
                }
            }
        }
        return found
    }

    /// GitHub's anchor of a heading: its text as rendered (links to their text, code and emphasis
    /// marks dropped), lower case, punctuation removed but `-` and `_`, each space a `-`.
    static func slug(_ heading: String) -> String {
        var text = heading.replacingOccurrences(of: #"\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
        text = text.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "*", with: "")
        let kept = text.lowercased().unicodeScalars.filter {
            CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == " "
        }
        return String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-")
    }

    /// The anchors of a Markdown file: its headings' slugs (a repeated one gets `-1`, `-2`, …) and `<a id|name>`.
    static func anchors(of path: String) throws -> Set<String> {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var anchors: Set<String> = [], seen: [String: Int] = [:]
        for (_, line) in prose(text, blankingCode: false) {
            if let m = line.range(of: #"^#{1,6}\s+"#, options: .regularExpression) {
                let base = slug(String(line[m.upperBound...]).trimmingCharacters(in: .whitespaces))
                let n = seen[base, default: 0]
                seen[base] = n + 1
                anchors.insert(n == 0 ? base : "\(base)-\(n)")
            }
        }
        let explicit = try NSRegularExpression(pattern: #"<a (?:id|name)="([^"]+)""#)
        for m in explicit.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            if let r = Range(m.range(at: 1), in: text) { anchors.insert(String(text[r])) }
        }
        return anchors
    }

    @Test("GitHub's slugs as the README's links use them")
    func slugs() {
        #expect(
            Self.slug("The community path network (`PathNetwork`, `NetworkLink`, `NetworkEdge`)")
                == "the-community-path-network-pathnetwork-networklink-networkedge")
        #expect(Self.slug("The hub (`bikepath-hub`)") == "the-hub-bikepath-hub")
        #expect(Self.slug("Map page (`/map`)") == "map-page-map")
        #expect(Self.slug("Read API (docs/api.yaml, \"Shared map\")") == "read-api-docsapiyaml-shared-map")
    }

    @Test("every link of README.md and docs/*.md names a file that exists, and an anchor that exists there")
    func everyLinkResolves() throws {
        var checked = 0
        for file in Self.documents {
            for link in try Self.links(in: file) {
                let target = link.target
                if target.contains("://") || target.hasPrefix("mailto:") { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let directory = (file as NSString).deletingLastPathComponent
                let path =
                    parts[0].isEmpty
                    ? packageRoot + "/" + file
                    : ((packageRoot + "/" + directory + "/" + (parts[0].removingPercentEncoding ?? parts[0])) as NSString).standardizingPath
                checked += 1
                guard FileManager.default.fileExists(atPath: path) else {
                    Issue.record("\(link): no file \(path)")
                    continue
                }
                if parts.count == 2, path.hasSuffix(".md") {
                    let anchors = try Self.anchors(of: path)
                    if !anchors.contains(parts[1]) {
                        Issue.record("\(link): no anchor #\(parts[1]) in \(parts[0].isEmpty ? file : parts[0])")
                    }
                }
            }
        }
        #expect(checked > 50, "only \(checked) links found: the reader is broken")
    }
}
