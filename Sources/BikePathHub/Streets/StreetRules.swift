/// Which OpenStreetMap ways a bicycle may use, and in which direction: each rule once, with
/// the OSM wiki's meaning (wiki.openstreetmap.org, Key:highway, Key:access, Key:oneway,
/// Key:cycleway, Bicycle). Pure: tags in, a verdict out.
public enum StreetRules {
    /// Ways a bicycle may ride unless a tag says no, as bike routers keep them (BRouter's and
    /// GraphHopper's bike profiles): cycle tracks, the road classes below motorway and trunk,
    /// streets (`residential`, `living_street`: pedestrians have priority, bicycles allowed),
    /// `service` (access roads, car parks), `track` (agricultural/forest roads), `path`
    /// (multi-use; UK law and OSM's default allow bicycles).
    static let bicycleByDefault: Set<String> = [
        "cycleway", "primary", "primary_link", "secondary", "secondary_link", "tertiary", "tertiary_link",
        "unclassified", "residential", "living_street", "service", "track", "path",
    ]

    /// Ways a bicycle may ride only where a tag allows it: `footway` and `pedestrian` (for
    /// walking), `bridleway` (horses), `steps`, `corridor` (indoors), `motorway`/`trunk`
    /// (motor roads; in the UK a trunk may be cycled, but OSM's router defaults differ by
    /// country: only an explicit tag is trusted here). Any other highway value (`proposed`,
    /// `construction`, `platform`, `bus_stop`, `elevator` …) is not a way to ride at all.
    static let bicycleWhereAllowed: Set<String> = [
        "footway", "pedestrian", "bridleway", "steps", "corridor", "motorway", "motorway_link", "trunk", "trunk_link",
    ]

    /// Access values that let a bicycle in (Key:access): `yes` (legal right of way),
    /// `designated` (signed for it), `permissive` (the owner allows it until revoked).
    static let allowing: Set<String> = ["yes", "designated", "permissive"]

    /// Access values that keep a bicycle out: `no`, `private` (only with the owner's
    /// permission), and for `bicycle=*` also `use_sidepath` (a compulsory parallel cycle
    /// track must be used instead), `dismount` (push the bicycle: not a way to ride).
    static let refusing: Set<String> = ["no", "private", "use_sidepath", "dismount"]

    /// The bicycle's access from the most specific key that is set (Key:access: a transport
    /// mode's key overrides its class, `bicycle` over `vehicle` over `access`); nil when none is.
    static func bicycleAccess(_ tags: [String: String]) -> String? {
        tags["bicycle"] ?? tags["vehicle"] ?? tags["access"]
    }

    /// Whether a bicycle may use a way with these tags.
    public static func isStreet(_ tags: [String: String]) -> Bool {
        guard let highway = tags["highway"] else { return false }
        // area=yes: a square drawn as its outline (Key:area); its edge is not a way through it.
        if tags["area"] == "yes" { return false }
        let access = bicycleAccess(tags)
        if let access, refusing.contains(access) { return false }
        if bicycleByDefault.contains(highway) { return true }
        return bicycleWhereAllowed.contains(highway) && access.map(allowing.contains) == true
    }

    /// Which way along a way's node order a bicycle may ride it.
    public enum Direction: String, Sendable, CaseIterable {
        case both, forward, backward
    }

    /// Key:oneway: `yes`/`true`/`1` is along the node order, `-1`/`reverse` against it, `no`
    /// both; `junction=roundabout` (and `circular`) implies `oneway=yes` unless tagged.
    /// Bicycles are exempt where `oneway:bicycle=no` or a contraflow lane or track is mapped
    /// (`cycleway[:both|:left|:right]=opposite|opposite_lane|opposite_track`, Key:cycleway);
    /// `oneway:bicycle=yes|-1` makes a way one-way for bicycles alone.
    public static func direction(_ tags: [String: String]) -> Direction {
        if let bicycle = tags["oneway:bicycle"], let d = onewayValue(bicycle) { return d }
        let contraflow = ["cycleway", "cycleway:both", "cycleway:left", "cycleway:right"].contains {
            tags[$0]?.hasPrefix("opposite") == true
        }
        if contraflow { return .both }
        if let oneway = tags["oneway"], let d = onewayValue(oneway) { return d }
        return ["roundabout", "circular"].contains(tags["junction"] ?? "") ? .forward : .both
    }

    private static func onewayValue(_ value: String) -> Direction? {
        switch value {
        case "yes", "true", "1": .forward
        case "-1", "reverse": .backward
        case "no", "false", "0": .both
        default: nil
        }
    }

    /// The cycle infrastructure on each side (Key:cycleway): `cycleway=*` and `cycleway:both=*`
    /// apply to both sides, `cycleway:left=*`/`cycleway:right=*` to one and win over them.
    public static func cycleway(_ tags: [String: String]) -> (left: String?, right: String?) {
        let both = tags["cycleway:both"] ?? tags["cycleway"]
        return (tags["cycleway:left"] ?? both, tags["cycleway:right"] ?? both)
    }
}
