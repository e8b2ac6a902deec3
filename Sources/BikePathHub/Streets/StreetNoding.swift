import BikePathCore

/// Cuts the ways a bicycle may use into edges at every node two or more of them share (or
/// one way passes twice) and at each way's ends, as routing graphs are built (osm2pgrouting,
/// OSRM): an edge then joins two junctions, or a junction and a dead end. Pure and
/// deterministic: the same ways give the same edges in the same order.
enum StreetNoding {
    static func edges(_ ways: [OPLWay]) -> [StreetEdge] {
        let sorted = ways.sorted { $0.id < $1.id }
        var uses: [Int64: Int] = [:]
        for way in sorted {
            for ref in distinctRefs(way) { uses[ref.node, default: 0] += 1 }
        }
        var edges: [StreetEdge] = []
        var keys: Set<StreetEdge.Key> = []
        for way in sorted {
            let template = edgeTemplate(way)
            var run: [(node: Int64, at: Coordinate)] = []
            for (i, ref) in way.refs.enumerated() {
                // A node outside the extract breaks the way: the edges on either side of it
                // cannot be drawn.
                guard let location = ref.location else {
                    add(run, template, &edges, &keys)
                    run = []
                    continue
                }
                run.append((ref.node, Coordinate(latitude: location.latitude, longitude: location.longitude)))
                if run.count > 1 && (i == way.refs.count - 1 || uses[ref.node, default: 0] > 1) {
                    add(run, template, &edges, &keys)
                    run = [run[run.count - 1]]
                }
            }
            add(run, template, &edges, &keys)
        }
        return edges
    }

    /// The refs that count as uses: a closed way's last node is its first again.
    private static func distinctRefs(_ way: OPLWay) -> ArraySlice<OPLWay.Ref> {
        way.refs.count > 1 && way.refs.first?.node == way.refs.last?.node ? way.refs.dropLast() : way.refs[...]
    }

    /// An edge holding the way's tags, its key and geometry still to fill in.
    private static func edgeTemplate(_ way: OPLWay) -> StreetEdge {
        let tags = way.tags
        // An empty value says nothing (`name=`); both stores keep it as NULL.
        func tag(_ key: String) -> String? { tags[key].flatMap { $0.isEmpty ? nil : $0 } }
        let cycleway = StreetRules.cycleway(tags)
        return StreetEdge(
            key: StreetEdge.Key(way: way.id, from: 0, to: 0), points: [], lengthMeters: 0, highway: tags["highway"] ?? "",
            name: tag("name"), surface: tag("surface"), smoothness: tag("smoothness"),
            cyclewayLeft: cycleway.left.flatMap { $0.isEmpty ? nil : $0 }, cyclewayRight: cycleway.right.flatMap { $0.isEmpty ? nil : $0 },
            bicycle: StreetRules.bicycleAccess(tags).flatMap { $0.isEmpty ? nil : $0 }, direction: StreetRules.direction(tags))
    }

    /// Adds the run as an edge when it has two points or more. A key held already (a way
    /// passing between the same two nodes twice, as a loop back to its start) is split at
    /// its middle node so that each edge keeps a key of its own; a two-point repeat adds nothing.
    private static func add(
        _ run: [(node: Int64, at: Coordinate)], _ template: StreetEdge, _ edges: inout [StreetEdge], _ keys: inout Set<StreetEdge.Key>
    ) {
        guard run.count > 1 else { return }
        let key = StreetEdge.Key(way: template.key.way, from: run[0].node, to: run[run.count - 1].node)
        if keys.contains(key) {
            guard run.count > 2 else { return }
            let middle = run.count / 2
            add(Array(run[...middle]), template, &edges, &keys)
            add(Array(run[middle...]), template, &edges, &keys)
            return
        }
        keys.insert(key)
        var edge = template
        edge.key = key
        edge.points = run.map(\.at)
        edge.lengthMeters = zip(edge.points, edge.points.dropFirst()).reduce(0) { $0 + Geodesic.distance($1.0, $1.1) }
        edges.append(edge)
    }
}
