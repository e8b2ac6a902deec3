import BikePathAPI

extension JSONText {
    /// `value`'s own keys and `"schema": 1` (`JSONSchema.version`, docs/json.md) beside them,
    /// for a type whose keys are not this module's to add to (the configuration's, the
    /// sensors' diagnosis, the socket's replies).
    public struct Versioned<Value: Encodable>: Encodable {
        public var value: Value
        public init(_ value: Value) { self.value = value }

        private enum Key: String, CodingKey { case schema }

        public func encode(to encoder: Encoder) throws {
            try value.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(JSONSchema.version, forKey: .schema)
        }
    }
}
