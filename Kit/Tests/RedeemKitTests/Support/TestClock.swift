import Foundation

@testable import RedeemKit

/// A clock whose sleeps return at once, recorded, and move `now` forward.
final class TestClock: RedeemClock, Sendable {
    private struct State {
        var now: Date
        var sleeps: [TimeInterval] = []
    }

    private let state: Locked<State>

    init(now: Date = Fixture.requestDate) {
        state = Locked(State(now: now))
    }

    func now() -> Date { state.withLock { $0.now } }

    func sleep(seconds: TimeInterval) async throws {
        try Task.checkCancellation()
        state.withLock { state in
            state.sleeps.append(seconds)
            state.now += seconds
        }
    }

    func advance(by seconds: TimeInterval) {
        state.withLock { $0.now += seconds }
    }

    var sleeps: [TimeInterval] { state.withLock { $0.sleeps } }
}
