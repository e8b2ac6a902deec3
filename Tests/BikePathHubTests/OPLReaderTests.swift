import BikePathTestSupport
import Testing

@testable import BikePathHub

/// `OPLReader` on hand-written lines in osmium's OPL (osmcode.org/opl-file-format).
@Suite(.ownThreads) struct OPLReaderTests {
    func read(_ line: String) throws(OPLReader.Error) -> OPLElement? { try OPLReader.element(line[...], number: 7) }

    @Test func aTaggedNodeHasItsTagsUnescapedAndItsLocation() throws {
        let element = try read("n469770726 v6 dV c0 t2019-09-27T12:56:07Z i0 u Tname=Goswell%20%Road,bus=yes x-0.0996395 y51.5231477")
        #expect(
            element
                == .node(
                    OPLNode(
                        id: 469_770_726, tags: ["name": "Goswell Road", "bus": "yes"],
                        location: OPLLocation(latitude: 51.5231477, longitude: -0.0996395))))
    }

    @Test func escapesDecodeCommasEqualsSignsAndCharactersBeyondASCII() throws {
        let element = try read("n1 Tname=Caf%e9%%20%%2c%%20%Bar,note=a%3d%b,emoji=%1f6b2% x1 y2")
        guard case .node(let node) = element else { Issue.record("\(String(describing: element))"); return }
        #expect(node.tags == ["name": "Café , Bar", "note": "a=b", "emoji": "🚲"])
    }

    @Test func aWayHasEachNodeRefWithItsLocationOrNoneWhereOsmiumHadNone() throws {
        let element = try read("w5 Thighway=residential Nn1x-0.1y51.5,n2xy,n3")
        #expect(
            element
                == .way(
                    OPLWay(
                        id: 5, tags: ["highway": "residential"],
                        refs: [
                            .init(node: 1, location: OPLLocation(latitude: 51.5, longitude: -0.1)), .init(node: 2, location: nil),
                            .init(node: 3, location: nil),
                        ])))
    }

    @Test func emptyLinesAndRelationsGiveNothingToKeep() throws {
        #expect(try read("") == nil)
        #expect(try read("r9 Ttype=route Mw5@,n1@stop") == .other)
        #expect(try read("n3 T x y") == .node(OPLNode(id: 3, tags: [:], location: nil)))
    }

    @Test(arguments: [
        ("q1 T", OPLReader.Problem.unknownType("q")),
        ("nX T", .badID("X")),
        ("n1 Tname", .badTag("name")),
        ("n1 Tname=A%20", .badEscape("A%20")),
        ("n1 Tname=A%zz%", .badEscape("A%zz%")),
        ("n1 Tname=%d800%", .badEscape("%d800%")),
        ("n1 x200 y1", .badCoordinate("200")),
        ("n1 x1 y91", .badCoordinate("91")),
        ("n1 xnan y1", .badCoordinate("nan")),
        ("w1 Nn1x1y2,m2", .badNodeRef("m2")),
        ("w1 Nn1y2x1", .badNodeRef("n1y2x1")),
        ("n1 Q5", .unknownField("Q5")),
    ])
    func aMalformedLineIsAnErrorNamingItsLineAndWhy(_ line: String, _ problem: OPLReader.Problem) {
        #expect(throws: OPLReader.Error(line: 7, problem: problem)) { try read(line) }
    }
}
