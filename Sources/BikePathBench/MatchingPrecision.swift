import BikePathFixtures
import BikePathHub

/// Where matched rides put evidence they did not earn, for bench/matching.sh: each ride's
/// edges and ways that count as ridden (`StreetRides.counted`, the rule the hub applies)
/// and, of those, the ones its truth never rode, by kind: a street the ride did not enter,
/// laid there and back (a side street at a junction); another street laid one way (a
/// parallel way, a carriageway beside it); the ridden street's other way.
struct MatchingPrecision {
    var counted = 0
    var thereAndBack = 0
    var otherStreet = 0
    var otherWay = 0
    var notRiddenMeters = 0.0

    private struct EdgeWay: Hashable {
        var edge: Int
        var forward: Bool
        init(edge: Int, forward: Bool) { (self.edge, self.forward) = (edge, forward) }
        init(_ piece: StreetMatch.Piece, _ index: [StreetEdge.Key: Int]) {
            (edge, forward) = (index[piece.key]!, piece.way == StreetMatch.Way.forward)
        }
    }

    mutating func add(ride: StreetWalk.Ride, match: StreetMatch, index: [StreetEdge.Key: Int], parameters: MatchParameters) {
        let ridden = Set(ride.truth.map { EdgeWay(edge: $0.street, forward: $0.forward) })
        let pieces = match.runs.flatMap(\.pieces)
        let laid = Set(pieces.map { EdgeWay($0, index) })
        for piece in StreetRides.counted(pieces, parameters) {
            counted += 1
            let way = EdgeWay(piece, index)
            guard !ridden.contains(way) else { continue }
            notRiddenMeters += piece.lengthMeters
            let reverse = EdgeWay(edge: way.edge, forward: !way.forward)
            if ridden.contains(reverse) {
                otherWay += 1
            } else if laid.contains(reverse) {
                thereAndBack += 1
            } else {
                otherStreet += 1
            }
        }
    }

    var notRidden: Int { thereAndBack + otherStreet + otherWay }

    var line: String {
        let share = counted > 0 ? Double(notRidden) / Double(counted) : 0
        return "  evidence: \(counted) edge-ways counted as ridden, \(notRidden) (\(MatchingBenchmark.percent(share))) not ridden, "
            + "\(Int(notRiddenMeters.rounded())) m: \(thereAndBack) there and back into a street not entered, "
            + "\(otherStreet) another street one way, \(otherWay) the ridden street's other way"
    }
}
