/// Named places read from OpenStreetMap's OPL text (`osmium add-locations-to-ways -f opl`:
/// nodes with their position, ways with their nodes' positions), for tests and the places
/// benchmark on real data; the hub's OSM import is not this. A named node with a tag of
/// `nodeKinds` is a place of that kind; a named street (`highway`) or `leisure` way is one
/// at its middle node.
public enum OPLPlaces {
    public struct Named: Sendable, Equatable {
        public var osmID: String, name: String, kind: String, latitude: Double, longitude: Double
    }

    /// The tags that make a node a place, in the order they name its kind.
    public static let nodeKinds = ["railway", "amenity", "shop", "tourism", "leisure", "historic", "public_transport", "highway", "place"]

    public static func places(_ opl: String) -> [Named] { opl.split(separator: "\n").compactMap(place) }

    /// One line's place: `n1 v1 … Tname=X,amenity=cafe x-0.1 y51.5` or
    /// `w1 v1 … Thighway=primary,name=X Nn1x-0.1y51.5,n2x…`.
    static func place(_ line: Substring) -> Named? {
        let parts = line.split(separator: " ")
        var fields: [Character: Substring] = [:]
        for field in parts.dropFirst() { if let key = field.first { fields[key] = field.dropFirst() } }
        guard let id = parts.first, let tags = fields["T"].map(tags), let name = tags["name"], !name.isEmpty else { return nil }
        switch id.first {
        case "n":
            guard let kind = nodeKinds.compactMap({ tags[$0] }).first, let x = fields["x"].flatMap({ Double($0) }),
                let y = fields["y"].flatMap({ Double($0) })
            else { return nil }
            return Named(osmID: String(id), name: name, kind: kind, latitude: y, longitude: x)
        case "w":
            guard let kind = tags["highway"] != nil ? "street" : tags["leisure"] else { return nil }
            let nodes = (fields["N"] ?? "").split(separator: ",").compactMap { node -> (Double, Double)? in
                guard let x = node.firstIndex(of: "x"), let y = node.firstIndex(of: "y"),
                    let lon = Double(node[node.index(after: x)..<y]), let lat = Double(node[node.index(after: y)...])
                else { return nil }
                return (lat, lon)
            }
            guard !nodes.isEmpty else { return nil }
            let middle = nodes[nodes.count / 2]
            return Named(osmID: String(id), name: name, kind: kind, latitude: middle.0, longitude: middle.1)
        default: return nil
        }
    }

    /// OPL's tags: `k=v,k=v`, with `%XX%` (a hex code point) for a space, comma, equals sign, …
    static func tags(_ text: Substring) -> [String: String] {
        var out: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            out[unescape(kv[0])] = unescape(kv[1])
        }
        return out
    }

    static func unescape(_ text: Substring) -> String {
        var out = "", rest = text[...]
        while let open = rest.firstIndex(of: "%") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "%"), let code = UInt32(after[..<close], radix: 16), let scalar = Unicode.Scalar(code)
            else { return out + rest[open...] }
            out.unicodeScalars.append(scalar)
            rest = after[after.index(after: close)...]
        }
        return out + rest
    }
}
