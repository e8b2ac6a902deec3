import BikePathAPI
import BikePathSync
import Testing

/// The batch size's one bound (`SyncOptions.batchSizes`), which `sync run --batch-size`
/// and the daemon both take: at least one record, at most what the hub accepts.
@Suite(.ownThreads) struct SyncOptionsTests {
    @Test func aBatchHoldsOneRecordUpToWhatTheHubTakes() throws {
        #expect(SyncOptions.batchSizes == 1...BatchRequest.maxItems)
        var options = SyncOptions()
        #expect(SyncOptions.batchSizes.contains(options.batchSize), "the default is within the bound")
        for size in [1, BatchRequest.maxItems] {
            try options.setBatchSize(size)
            #expect(options.batchSize == size)
        }
        for size in [0, -1, BatchRequest.maxItems + 1] {
            #expect(throws: SyncOptionsError.batchSize(size)) { try options.setBatchSize(size) }
            #expect(options.batchSize == BatchRequest.maxItems, "a refused size leaves the last one")
        }
        #expect("\(SyncOptionsError.batchSize(0))".contains("1 to \(BatchRequest.maxItems)"))
    }
}
