import Foundation
import RedeemWebhooks
import Testing

@Suite struct WebhookRetryPolicyTests {
    let failedAt = Date(timeIntervalSince1970: 1_767_225_600)

    @Test func defaultScheduleIsFiveRetriesDoubling() {
        let policy = WebhookRetryPolicy.default
        let delays = (1...5).map { policy.nextAttempt(afterAttempt: $0, from: failedAt)!.timeIntervalSince(failedAt) }
        #expect(delays == [300, 600, 1200, 2400, 4800])
        #expect(policy.nextAttempt(afterAttempt: 6, from: failedAt) == nil)
        #expect(policy.nextAttempt(afterAttempt: 0, from: failedAt) == failedAt)
        #expect(policy.timeout == 60)
    }

    @Test func baseAndCountAreConfigurable() {
        let policy = WebhookRetryPolicy(baseDelay: 30, maxRetries: 2)
        #expect(policy.nextAttempt(afterAttempt: 1, from: failedAt) == Date(timeIntervalSince1970: 1_767_225_630))
        #expect(policy.nextAttempt(afterAttempt: 2, from: failedAt) == Date(timeIntervalSince1970: 1_767_225_660))
        #expect(policy.nextAttempt(afterAttempt: 3, from: failedAt) == nil)
        #expect(WebhookRetryPolicy(maxRetries: 0).nextAttempt(afterAttempt: 1, from: failedAt) == nil)
    }

    @Test func onlyTwoHundredsSucceed() {
        #expect(WebhookRetryPolicy.isSuccess(statusCode: 200))
        #expect(WebhookRetryPolicy.isSuccess(statusCode: 204))
        for code in [nil, 199, 301, 400, 410, 500, 503] as [Int?] {
            #expect(!WebhookRetryPolicy.isSuccess(statusCode: code))
        }
    }
}
