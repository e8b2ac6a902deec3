import BikePathCore

/// A street edge as both stores keep it (table `streets`, migration v13-streets).
extension StreetEdge {
    /// The columns a stored edge is read from, in `init(stored:…)`'s order.
    static let storedColumns =
        "way_id, from_node, to_node, points, length_m, highway, name, surface, smoothness, cycleway_left, cycleway_right, bicycle, direction"

    /// A stored row that is no street edge: written by something else than the import.
    public struct CorruptRow: Error, Equatable, CustomStringConvertible {
        public var key: Key
        public var why: String
        public var description: String { "the stored street (way \(key.way), \(key.from) to \(key.to)) is unreadable: \(why)" }
    }

    init(
        stored way: Int64, _ from: Int64, _ to: Int64, points text: String, length: Double, highway: String, name: String?,
        surface: String?, smoothness: String?, cyclewayLeft: String?, cyclewayRight: String?, bicycle: String?, direction: String
    ) throws(CorruptRow) {
        let key = Key(way: way, from: from, to: to)
        guard let points = Self.points(text: text) else { throw CorruptRow(key: key, why: "points \(text.prefix(80).debugDescription)") }
        guard let direction = StreetRules.Direction(rawValue: direction) else {
            throw CorruptRow(key: key, why: "direction \(direction.debugDescription)")
        }
        self.init(
            key: key, points: points, lengthMeters: length, highway: highway, name: name, surface: surface, smoothness: smoothness,
            cyclewayLeft: cyclewayLeft, cyclewayRight: cyclewayRight, bicycle: bicycle, direction: direction)
    }
}
