import BikePathCore

extension CorroborationRule {
    /// The reports of one kind in one 10 m cell made riding in one sector, of every rider:
    /// what the rule clusters into spots (it never looks at one rider's reports alone).
    public struct ReportGroup: Sendable, Equatable {
        public var cell: MapGrid.Cell
        public var sector: Int
        public var kind: String
        public var tally: MapEvidence.ReportTally
        /// The distinct riders who made them, in order.
        public var devices: [String]
        var position: Coordinate { tally.position }
        /// Known directions of one sector agree (15°): their axial mean, with no threshold.
        var direction: Double? {
            sector < 0 ? nil : CorroborationRule.axialMean(x: Double(tally.axisX), y: Double(tally.axisY), of: 0)
        }

        /// The groups of `evidence`'s reports, in their order (`Collector.groups`).
        public static func all(in evidence: MapEvidence) -> [ReportGroup] {
            var collector = Collector()
            for (key, tally) in evidence.reports { collector.add(key, tally) }
            return collector.groups()
        }

        /// A group's place in the order the rule reads groups in (its index breaks the last
        /// ties between spots): by map tile first, then cell, sector and kind. A store keeps
        /// the reports by tile (`MapEvidence.tile(ofReportCell:)`) and reads a tile at a time,
        /// so its rows come in this order and need no sort.
        private struct Place: Comparable {
            var tile: MapGrid.Cell
            var cell: MapGrid.Cell
            var sector: Int
            var kind: String
            init(_ key: MapEvidence.ReportKey) {
                (tile, cell, sector, kind) = (MapEvidence.tile(ofReportCell: key.cell), key.cell, key.sector, key.kind)
            }
            static func < (a: Self, b: Self) -> Bool { (a.tile, a.cell, a.sector, a.kind) < (b.tile, b.cell, b.sector, b.kind) }
        }

        /// Groups one rider's tallies as a store reads them (`HubStore.mapReportGroups`).
        /// In order, a row joins the group before it: a remake's read (~25,000 rows at 100×
        /// the city) then builds no dictionary keyed by rider, which was a quarter of a remake
        /// there (docs/performance.md). Rows in another order are grouped all the same.
        public struct Collector: Sendable {
            private var collected: [(place: Place, group: ReportGroup)] = []
            private var inOrder = true

            public init() {}

            /// One rider's reports (`key.device`) in a group; each (group, rider) once.
            public mutating func add(_ key: MapEvidence.ReportKey, _ tally: MapEvidence.ReportTally) {
                if let last = collected.indices.last, collected[last].group.cell == key.cell,
                    collected[last].group.sector == key.sector, collected[last].group.kind == key.kind
                {
                    if collected[last].group.devices.last! > key.device { inOrder = false }
                    collected[last].group.tally.add(tally)
                    collected[last].group.devices.append(key.device)
                    return
                }
                let place = Place(key)
                if let last = collected.last, last.place > place { inOrder = false }
                collected.append(
                    (place, ReportGroup(cell: key.cell, sector: key.sector, kind: key.kind, tally: tally, devices: [key.device])))
            }

            /// The groups in order (`Place`), each with its riders in order, whatever order the rows came in.
            public func groups() -> [ReportGroup] {
                guard !inOrder else { return collected.map(\.group) }
                var merged: [(place: Place, group: ReportGroup)] = []
                for g in collected.sorted(by: { $0.place < $1.place }) {
                    if let last = merged.indices.last, merged[last].place == g.place {
                        merged[last].group.tally.add(g.group.tally)
                        merged[last].group.devices += g.group.devices
                    } else {
                        merged.append(g)
                    }
                }
                return merged.map { g in
                    var group = g.group
                    group.devices.sort()
                    return group
                }
            }
        }
    }
}
