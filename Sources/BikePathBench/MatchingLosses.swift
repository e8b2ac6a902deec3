import BikePathFixtures
import BikePathHub

/// Where a matched ride loses its length, for the rides under the goal in bench/matching.sh:
/// each metre of the truth not on its street that way is put down to the fixes taken there
/// being in no run (a chain break), to the match laying that street the other way, or to
/// another street; and the metres laid beyond the truth are split into there-and-backs (a
/// street laid one way and then straight back) and the rest.
struct MatchingLosses {
    var unmatched = 0.0
    var otherWay = 0.0
    var otherStreet = 0.0
    var thereAndBack = 0.0
    var thereAndBacks = 0
    var extra = 0.0

    init(ride: StreetWalk.Ride, match: StreetMatch, matched: [StreetWalk.Stretch]) {
        let inRun = Set(match.runs.flatMap { Array($0.fixes) })
        var start = 0.0
        for stretch in ride.truth {
            defer { start += stretch.length }
            let missing = stretch.length - StreetWalk.sharedMeters(truth: [stretch], matched: matched)
            guard missing > 0.5 else { continue }
            // The fixes taken on this stretch: one every `speed` metres of the walk.
            let fixes = Int((start / ride.speed).rounded(.up))..<Int(((start + stretch.length) / ride.speed).rounded(.up))
            let off = fixes.filter { !inRun.contains($0) }.count
            if !fixes.isEmpty, off * 2 > fixes.count {
                unmatched += missing
            } else if matched.contains(where: { $0.street == stretch.street && $0.forward != stretch.forward }) {
                otherWay += missing
            } else {
                otherStreet += missing
            }
        }
        for (a, b) in zip(matched, matched.dropFirst()) where a.street == b.street && a.forward != b.forward {
            thereAndBack += min(a.length, b.length) * 2
            thereAndBacks += 1
        }
        let laid = matched.reduce(0) { $0 + $1.length }
        extra = laid - StreetWalk.sharedMeters(truth: ride.truth, matched: matched) - thereAndBack
    }

    var line: String {
        func m(_ x: Double) -> String { "\(Int(x.rounded())) m" }
        return "lost: unmatched \(m(unmatched)), other way \(m(otherWay)), other street \(m(otherStreet)); "
            + "laid beyond the truth: \(thereAndBacks) there-and-backs \(m(thereAndBack)), else \(m(extra))"
    }
}
