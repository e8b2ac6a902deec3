import Foundation
import BikePathStore
import GRDB

/// bench/store.sh's CSV half: the rows `store-bench` wrote, read back with GRDB
/// from the closed store file.
enum StoreCSVDump {
    /// Writes every track point, event and IMU window as CSV (`points.csv`, `events.csv`, `windows.csv`,
    /// columns in table order, BLOBs as hex text) plus `trips.sql` for the trip rows they refer to, so that
    /// bench/store.sh can `.import` the same rows with the sqlite3 CLI.
    static func write(database: String, directory: String) throws -> (points: Int, events: Int) {
        try DatabaseQueue(path: database).read { db in
            func dump(_ sql: String, to name: String) throws -> Int {
                var text = ""
                var n = 0
                let rows = try Row.fetchCursor(db, sql: sql)
                while let row = try rows.next() {
                    text +=
                        row.databaseValues.map { value -> String in
                            switch value.storage {
                            case .null: ""
                            case .int64(let i): String(i)
                            case .double(let d): "\(d)"
                            case .string(let s): "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                            case .blob(let b): [UInt8](b).hexString
                            }
                        }.joined(separator: ",") + "\n"
                    n += 1
                }
                try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
                return n
            }
            let trips = try Row.fetchAll(db, sql: "SELECT id, seq, state, start_time_ns FROM trips").map {
                "INSERT INTO trips (id, seq, state, start_time_ns) VALUES ('\($0["id"] as String)', \($0["seq"] as Int64), '\($0["state"] as String)', \($0["start_time_ns"] as Int64));\n"
            }
            try trips.joined().write(toFile: directory + "/trips.sql", atomically: true, encoding: .utf8)
            _ = try dump("SELECT event_id, samples FROM event_windows", to: "windows.csv")
            return (try dump("SELECT * FROM track_points", to: "points.csv"), try dump("SELECT * FROM events", to: "events.csv"))
        }
    }
}
