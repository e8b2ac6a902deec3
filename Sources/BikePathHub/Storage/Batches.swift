extension Array {
    /// The array in consecutive slices of at most `size` elements, in order: one statement or
    /// one indexing pass each, so that a whole city's rows never go as one message.
    func batches(of size: Int) -> [ArraySlice<Element>] {
        precondition(size > 0, "a batch holds at least one element")
        return stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
