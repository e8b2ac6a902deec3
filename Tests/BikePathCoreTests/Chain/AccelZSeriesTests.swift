import Testing
@testable import BikePathCore

struct AccelZSeriesTests {
    @Test func readsHeaderValuesBlankLinesAndCRLF() throws {
        #expect(try AccelZSeries.parse("acc_z\r\n9.81\r\n\r\n 10.5 \n-1e1\n") == [9.81, 10.5, -10])
        #expect(try AccelZSeries.parse("9.8\n9.9") == [9.8, 9.9])
        #expect(try AccelZSeries.parse("") == [])
    }

    @Test func namesTheBadLine() {
        #expect(throws: AccelZSeries.ParseError(line: 3, text: "abc")) { try AccelZSeries.parse("acc_z\n9.8\nabc\n") }
        #expect(throws: AccelZSeries.ParseError(line: 2, text: "nan")) { try AccelZSeries.parse("1\nnan\n") }
        #expect(throws: AccelZSeries.ParseError(line: 2, text: "acc_z")) { try AccelZSeries.parse("1\nacc_z\n") }
        #expect(throws: AccelZSeries.ParseError(line: 1, text: "1,2")) { try AccelZSeries.parse("1,2\n") }
    }
}
