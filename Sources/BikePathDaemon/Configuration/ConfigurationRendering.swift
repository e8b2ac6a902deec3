import BikePathAPI
import Foundation

extension DaemonConfiguration {
    /// The effective configuration as TOML, in the file's section order, every key
    /// written out but the ones the file leaves unset (`bikepathd config show`). Parsing
    /// it gives back `self` (tested), so it can be saved as a starting file.
    public func tomlText() -> String {
        var out = ""
        for section in ConfigurationKey.bySection {
            out += "[\(section.name)]\n"
            for key in section.keys {
                if let value = key.value(self) { out += "\(key.name) = \(value.tomlText)\n" }
            }
            out += "\n"
        }
        out.removeLast()
        return out
    }

    /// The effective configuration as JSON, with the file's key names and the schema version.
    public func jsonText() -> String {
        // Encoding plain strings, finite numbers and booleans cannot fail.
        (try? JSONText.document(JSONText.Versioned(self))) ?? "{}"
    }
}

/// JSON in the file's shape (`config show --json`): a section per object, the file's key
/// names; read back, an absent or mistyped key keeps its default.
extension DaemonConfiguration: Codable {
    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var root = encoder.container(keyedBy: Name.self)
        for section in ConfigurationKey.bySection {
            var keys = root.nestedContainer(keyedBy: Name.self, forKey: Name(section.name))
            for key in section.keys {
                try keys.encodeIfPresent(key.value(self), forKey: Name(key.name))
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init()
        let root = try decoder.container(keyedBy: Name.self)
        for section in ConfigurationKey.bySection where root.contains(Name(section.name)) {
            let keys = try root.nestedContainer(keyedBy: Name.self, forKey: Name(section.name))
            for key in section.keys {
                if let value = try keys.decodeIfPresent(ConfigurationValue.self, forKey: Name(key.name)) { _ = key.assign(&self, value) }
            }
        }
    }
}
