import BikePathCore

/// A named place from OpenStreetMap that a rider may route to or from (`GET /v1/places`):
/// a station, a café, a park, a street. The OSM import makes them (`bikepath-hub import-osm`);
/// each import replaces the last one's.
public struct Place: Sendable, Equatable, Hashable {
    /// The OpenStreetMap element it comes from, as OPL writes it ("n123", "w456"): one place
    /// per element, so a re-import names the same place the same way.
    public var osmID: String
    public var name: String
    /// What it is, from the tag that made it a place: "cafe", "station", "park", "street".
    public var kind: String
    /// Where a route to it starts or ends: a node's position, a way's middle point.
    public var position: Coordinate

    public init(osmID: String, name: String, kind: String, position: Coordinate) {
        (self.osmID, self.name, self.kind, self.position) = (osmID, name, kind, position)
    }
}
