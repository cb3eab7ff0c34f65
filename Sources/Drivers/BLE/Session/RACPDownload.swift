import Foundation
import Model
import Transport

/// The download of stored records through a Record Access Control Point (shared by the CGM and
/// Glucose services; gatt-xml record_access_control_point): ask how many records match, then ask for
/// them. The records arrive as measurement notifications, which the link hands to the driver
/// that owns them, before the final response code.
///
/// Response codes: success and "no records found" end the download normally. A device that
/// refuses the filter of an incremental download (invalid or unsupported operator or operand)
/// is asked for all its records instead, once: the store drops those it holds. Any other code
/// is a `BLEDriverError.racpFailed`.
struct RACPDownload {
    let service: BLEService
    let controlPoint: GATTCharacteristic
    let link: BLELink

    /// How a download ended.
    struct Outcome {
        /// What the device said it holds for the filter, when it answered the count.
        var storedCount: UInt16?
        /// The request that ran, and whether it completed with success or no records found.
        var request: RACPRequest
        var completed: Bool
        var problem: BLEDriverError?
    }

    /// Downloads the records `filter` selects (`incremental`: the filter starts after the last
    /// record stored, so a refusal falls back to all records).
    func run(_ filter: RACPFilter, incremental: Bool) throws(BLEDriverError) -> Outcome {
        var outcome = try attempt(filter)
        if incremental, case .racpFailed(_, _, let code)? = outcome.problem, Self.filterRefusals.contains(code) {
            link.note("\(service.name): the device refused the filter of \(Self.hex(filter)) (\(code)); all records were asked for")
            outcome = try attempt(.all)
        }
        return outcome
    }

    /// Codes that mean the device cannot apply the filter.
    static let filterRefusals: [RACPResponseCode] = [.invalidOperator, .operatorNotSupported, .invalidOperand, .operandNotSupported]

    private func attempt(_ filter: RACPFilter) throws(BLEDriverError) -> Outcome {
        let count = RACPRequest.reportNumberOfStoredRecords(filter)
        var outcome = Outcome(request: .reportStoredRecords(filter), completed: false)
        switch try exchange(count) {
        case .answer(.numberOfStoredRecords(let stored)):
            outcome.storedCount = stored
            link.context.progress.expect(Int(stored), of: "\(service.name) records")
            link.note("\(service.name): the device holds \(stored) stored record\(stored == 1 ? "" : "s") for \(Self.hex(filter))")
            if stored == 0 {
                outcome.completed = true
                return outcome
            }
        case .answer(.responseCode(_, let code)) where code == .noRecordsFound:
            outcome.storedCount = 0
            outcome.completed = true
            return outcome
        case .answer(.responseCode(_, let code)) where code == .opCodeNotSupported:
            break
        case .answer(.responseCode(_, let code)):
            outcome.problem = .racpFailed(service: service, request: count, code: code)
            return outcome
        case .failed(let problem):
            outcome.problem = problem
            return outcome
        }
        switch try exchange(outcome.request) {
        case .answer(.responseCode(_, let code)) where code == .success || code == .noRecordsFound:
            outcome.completed = true
        case .answer(.responseCode(_, let code)):
            outcome.problem = .racpFailed(service: service, request: outcome.request, code: code)
        case .answer(.numberOfStoredRecords):
            outcome.problem = .racpIncomplete(
                service: service, request: outcome.request, reason: "the device answered with a record count instead")
        case .failed(let problem):
            outcome.problem = problem
        }
        return outcome
    }

    private enum Exchange {
        case answer(RACPResponse)
        case failed(BLEDriverError)
    }

    /// Writes `request` and waits for the indication that answers it (a count, or the response
    /// code for its opcode), handing the records that come first to their driver.
    private func exchange(_ request: RACPRequest) throws(BLEDriverError) -> Exchange {
        do {
            try link.write(request.bytes, to: controlPoint)
        } catch {
            if case .attError = error { return .failed(.racpRefused(service: service, request: request, error: error)) }
            throw .link(error)
        }
        var ignored = 0
        while true {
            let indication: GATTNotification?
            do {
                indication = try link.next(on: controlPoint.valueHandle, timeout: link.answerTimeout)
            } catch {
                if case .disconnected(let why) = error {
                    return .failed(.racpIncomplete(service: service, request: request, reason: "the connection ended (\(why))"))
                }
                throw .link(error)
            }
            guard let indication else {
                return .failed(.racpUnanswered(service: service, request: request, seconds: Int(link.answerTimeout.components.seconds)))
            }
            let response: RACPResponse
            do {
                response = try RACPResponse.decode(indication.value)
            } catch {
                return .failed(.value(error))
            }
            switch response {
            case .numberOfStoredRecords where request.opCode == .reportNumberOfStoredRecords:
                return .answer(response)
            case .responseCode(let opCode, _) where opCode == request.opCode.rawValue:
                return .answer(response)
            default:
                ignored += 1
                guard ignored <= Self.maximumIgnoredAnswers else {
                    return .failed(
                        .racpIncomplete(
                            service: service, request: request,
                            reason: "the device sent \(Self.maximumIgnoredAnswers) answers to other requests and none to this one"))
                }
                link.note("\(service.name): an unexpected Record Access Control Point answer (\(response.summary)) was ignored")
            }
        }
    }

    /// Answers to other requests tolerated while waiting for this one's: one procedure runs at
    /// a time on a control point, so a device sending more than a few is not answering.
    static let maximumIgnoredAnswers = 8

    static func hex(_ filter: RACPFilter) -> String {
        "filter " + filter.bytesForDisplay
    }
}

extension RACPResponse {
    /// `2 stored records`, `op code 1: success`.
    var summary: String {
        switch self {
        case .numberOfStoredRecords(let count): "\(count) stored record\(count == 1 ? "" : "s")"
        case .responseCode(let opCode, let code): "op code \(opCode): \(code)"
        }
    }
}

extension RACPFilter {
    /// `01` (all), `03 01 0B 00` (≥ 11), as the request carries it.
    var bytesForDisplay: String {
        bytes.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined(separator: " ")
    }
}
