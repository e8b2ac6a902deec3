import BikePathCore

/// What an OpenStreetMap extract gives the hub: its streets noded into edges
/// (`StreetNoding`) and its named places. Built from osmium's OPL lines
/// (`OSMImport`), a line at a time, then `finish()`ed: pure, no I/O.
public struct StreetExtract: Sendable {
    public var edges: [StreetEdge]
    /// Named stations, shops, cafés, parks …, and each named street once (kind "street").
    public var places: [Place]

    /// Data © OpenStreetMap contributors, under the Open Database Licence: whatever shows
    /// or ships it must say so (osmfoundation.org/wiki/Licence/Attribution_Guidelines).
    public static let attribution = "© OpenStreetMap contributors (ODbL)"

    public struct Builder: Sendable {
        private var streets: [OPLWay] = []
        private var places: [Place] = []
        /// The first way of each street name, by id: the street's place.
        private var namedStreets: [String: OPLWay] = [:]
        private var lines = 0

        public init() {}

        /// Reads the next OPL line; a malformed line throws with its number.
        public mutating func add(line: Substring) throws(OPLReader.Error) {
            lines += 1
            switch try OPLReader.element(line, number: lines) {
            case .node(let node):
                if let at = node.location, let place = Self.place("n\(node.id)", node.tags, at) { places.append(place) }
            case .way(let way):
                if StreetRules.isStreet(way.tags) {
                    streets.append(way)
                    if let name = way.tags["name"], !name.isEmpty, namedStreets[name].map({ $0.id > way.id }) ?? true {
                        namedStreets[name] = way
                    }
                } else if let middle = Self.middle(way), let place = Self.place("w\(way.id)", way.tags, middle) {
                    places.append(place)
                }
            case .other, nil: break
            }
        }

        public func finish() -> StreetExtract {
            var all = places
            for (name, way) in namedStreets {
                guard let m = Self.middle(way) else { continue }
                all.append(
                    Place(
                        osmID: "w\(way.id)", name: name, kind: "street", position: Coordinate(latitude: m.latitude, longitude: m.longitude))
                )
            }
            all.sort { ($0.osmID.first!, Int64($0.osmID.dropFirst()) ?? 0) < ($1.osmID.first!, Int64($1.osmID.dropFirst()) ?? 0) }
            return StreetExtract(edges: StreetNoding.edges(streets), places: all)
        }

        /// A way's place position: its middle located node.
        private static func middle(_ way: OPLWay) -> OPLLocation? {
            let located = way.refs.compactMap(\.location)
            return located.isEmpty ? nil : located[located.count / 2]
        }

        /// Keys that make a named element a place a rider may go to, in the order their
        /// value is read as its kind (wiki: Key:amenity "cafe", Key:shop "bakery",
        /// Key:tourism "museum", Key:leisure "park", Key:public_transport "station",
        /// Key:place "square"); `railway=station` alone among railway's values is a place.
        private static let placeKeys = ["amenity", "shop", "tourism", "leisure", "railway", "public_transport", "place"]

        private static func place(_ id: String, _ tags: [String: String], _ at: OPLLocation) -> Place? {
            guard let name = tags["name"], !name.isEmpty else { return nil }
            for key in placeKeys {
                guard let value = tags[key], !value.isEmpty, key != "railway" || value == "station" else { continue }
                // `shop=yes` says only "a shop".
                let kind = value == "yes" ? key : value
                return Place(osmID: id, name: name, kind: kind, position: Coordinate(latitude: at.latitude, longitude: at.longitude))
            }
            return nil
        }
    }
}
