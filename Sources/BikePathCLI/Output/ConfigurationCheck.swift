import BikePathDaemon
import BikePathStore
import Foundation

/// `bikepathd config check`: the file's verdict, and what it means with the rider's consent in the store.
public enum ConfigurationCheck {
    /// EX_CONFIG: systemd shows "status=78/CONFIG" for a bad file.
    public static let badFileStatus: Int32 = 78

    /// Checks the file `named` (else the default one, which may be missing: the daemon then runs on
    /// the defaults); prints its problems, one per line, on stderr. Returns the exit status: 0 or
    /// `badFileStatus`.
    public static func run(named: String?) async -> Int32 {
        let path = named ?? DaemonConfiguration.defaultPath
        if named == nil, !FileManager.default.fileExists(atPath: path) {
            print("\(path): no such file; the daemon runs on the defaults (bikepathd config show)")
            return 0
        }
        let configuration: DaemonConfiguration
        do { configuration = try ConfigurationLoader.load(path: path) } catch {
            standardErrorLine(error.description)
            return badFileStatus
        }
        print("\(path): ok")
        // The file is good; what it means with the rider's consent in the store is worth a warning (the file may not change consent).
        if configuration.crash.enabled {
            let storePath = configuration.commandStorePath
            if let store = try? Store.open(path: storePath, configuration: configuration.storeConfiguration, mode: .readOnly),
                let warning = await ConsentPolicy.sosStaysOnDevice(store: store, crashDetection: true)
            {
                standardErrorLine("warning: \(storePath): \(warning)")
            }
        }
        return 0
    }
}
