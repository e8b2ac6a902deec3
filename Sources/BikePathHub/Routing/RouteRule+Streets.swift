/// What a metre of an OpenStreetMap street costs where no rider rated it (docs/hub.md,
/// "Routes"): its class, its cycle infrastructure and its surface, in the units of
/// `RouteRule.statusFactors` (1.0 smooth verified asphalt, 1.25 an unrated path). The
/// numbers follow the bike profiles of BRouter (trekking) and GraphHopper (bike), which
/// prefer separated tracks, then quiet streets, and charge busy roads and rough surfaces.
extension RouteRule {
    /// The factor for `edge`'s tags: its class's (`streetClassFactor`), capped by its cycle
    /// infrastructure (a track beside a primary road rides like a cycle track), times the
    /// worse of its surface's and smoothness's.
    public func streetFactor(_ edge: StreetEdge) -> Double {
        let sides = [edge.cyclewayLeft, edge.cyclewayRight]
        var factor = streetClassFactor(edge.highway)
        // A separated track: as a cycleway. A painted lane: traffic beside it, so no better
        // than a quiet street and at most 1.3 (a primary with a lane is worth a 40 % detour
        // less than one without).
        if sides.contains("track") { factor = min(factor, streetClassFactor("cycleway")) }
        if sides.contains("lane") { factor = min(factor, 1.3) }
        return factor * max(surfaceFactor(edge.surface), smoothnessFactor(edge.smoothness))
    }

    /// By `highway` (Key:highway): a cycleway 1.1 (separated, but unrated: above verified
    /// optimal 1.0); residential and living streets 1.2 (quiet, 30 km/h or less); minor
    /// roads, service roads, tracks and shared paths 1.3; tertiary 1.4; secondary 1.6 and
    /// primary 1.8 (through traffic at 50 km/h and more: riders take a much longer way round);
    /// trunk and motorway, where a tag allows bicycles, 2.0 (as a surface needing repair).
    func streetClassFactor(_ highway: String) -> Double {
        switch highway.replacingOccurrences(of: "_link", with: "") {
        case "cycleway": 1.1
        case "residential", "living_street": 1.2
        case "unclassified", "service", "track", "path", "footway", "pedestrian", "bridleway": 1.3
        case "tertiary": 1.4
        case "secondary": 1.6
        case "primary": 1.8
        default: 2.0
        }
    }

    /// By `surface` (Key:surface): paved or untagged 1 (most streets in a city are asphalt
    /// and untagged); setts and cobbles 1.3 (shaking, slippery when wet); compacted and fine
    /// gravel 1.2; other unpaved surfaces 1.5 (slow, muddy after rain).
    func surfaceFactor(_ surface: String?) -> Double {
        switch surface {
        case nil, "asphalt", "paved", "concrete", "concrete:plates", "paving_stones", "chipseal", "metal", "wood": 1
        case "sett", "cobblestone", "unhewn_cobblestone", "cobblestone:flattened", "grass_paver": 1.3
        case "compacted", "fine_gravel": 1.2
        default: 1.5
        }
    }

    /// By `smoothness` (Key:smoothness): excellent or good 1; intermediate (a racing bike
    /// still rides it) 1.1; bad 1.3; very bad and worse (mountain bike only) 1.6.
    func smoothnessFactor(_ smoothness: String?) -> Double {
        switch smoothness {
        case nil, "excellent", "good": 1
        case "intermediate": 1.1
        case "bad": 1.3
        default: 1.6
        }
    }
}
