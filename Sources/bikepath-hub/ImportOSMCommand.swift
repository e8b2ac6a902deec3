import ArgumentParser
import BikePathHub
import Foundation

struct ImportOSM: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-osm",
        abstract:
            "Replace the hub's streets and named places with an OpenStreetMap extract's (.osm.pbf, read by Debian's osmium-tool); migrates the database first. Run it again to refresh (docs/hub.md, \"Streets\")."
    )

    @OptionGroup var storage: StorageOptions
    @Argument(help: "The extract, FILE.osm.pbf (e.g. a city's from download.geofabrik.de).") var file: String

    func run() async throws {
        let clock = ContinuousClock(), started = clock.now
        let (extract, stored) = try await storage.storage.withStore(logger: hubLogger()) { store in
            try await store.migrate()
            // Read whole before anything is written: a bad file leaves the stored streets and
            // places as they were. Each replace is one transaction; the places follow the
            // streets, so a failure between them leaves new streets with the last import's
            // places (a rerun of the import puts both right).
            let extract = try OSMImport.read(path: file)
            let replaced = try await store.replaceStreets(extract.edges)
            try await store.replacePlaces(extract.places)
            return (
                extract,
                (streets: try await store.streetCount(), stranded: try await store.strandedStreetEvidence(), replaced: replaced)
            )
        }
        let km = extract.edges.reduce(0) { $0 + $1.lengthMeters } / 1000
        let took = clock.now - started
        let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        print(
            "imported \(stored.streets) street edges (\(String(format: "%.1f", km)) km) from \(file) in \(String(format: "%.1f", seconds)) s; "
                + "\(extract.places.count) named places stored")
        if stored.replaced.movedEvidence > 0 {
            print(
                "riders' evidence on \(stored.replaced.movedEvidence) street edges the extract split, merged or re-noded "
                    + "moved to the \(stored.replaced.receivedEvidence) edges along them")
        }
        // Kept, not deleted: a later import that keys the street as before finds it again.
        if stored.stranded > 0 {
            print(
                "riders' evidence on \(stored.stranded) street edges matches no imported street (ways gone or moved); "
                    + "kept, not used by routes (docs/hub.md, \"The riders' evidence on the streets\")")
        }
        print("street data \(StreetExtract.attribution)")
    }
}
