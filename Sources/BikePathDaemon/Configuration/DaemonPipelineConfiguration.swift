import BikePathCore
import BikePathSensors
import BikePathStore

/// The configuration file's keys, handed to the parts that use them.
extension DaemonConfiguration {
    public var pipelineConfiguration: PipelineConfiguration {
        var c = PipelineConfiguration()
        c.tripStartCyclingSeconds = trip.startAfterS
        c.tripStartCyclingMeters = trip.startAfterM
        c.tripEndInactivitySeconds = trip.endAfterS
        c.obstacleMinSpeed = obstacles.enabled ? obstacles.minSpeedMps : .infinity
        c.obstacle.contextSigmas = Float(obstacles.thresholdSigmas)
        c.obstacle.reportPeak = Float(obstacles.minPeakMps2)
        c.obstacle.wheelbaseMeters = obstacles.wheelbaseM
        c.obstacleMergeMeters = obstacles.mergeM
        c.crashDetectionEnabled = crash.enabled
        return c
    }

    public var gpsdConfiguration: GPSDConfiguration { GPSDConfiguration(host: gnss.host, port: gnss.port) }

    public var iioConfiguration: IIOConfiguration {
        IIOConfiguration(uri: imu.uri, deviceName: imu.device.isEmpty ? nil : imu.device, samplingFrequency: imu.rateHz)
    }

    public var storeConfiguration: StoreConfiguration {
        var c = StoreConfiguration()
        c.budgetMegabytes = store.budgetMB
        c.milestoneSteps = [milestones.everyKm * 1000]
        c.reviewBudget = obstacles.reviewBudget
        c.trip = pipelineConfiguration
        return c
    }

    public var writerPolicy: WriterPolicy {
        var p = WriterPolicy()
        p.maxBatchSeconds = store.commitIntervalS
        return p
    }
}
