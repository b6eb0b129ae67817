// swift-tools-version:6.1
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "redeem",
    // The server needs macOS 15 (task executors in the SQLite engine). iOS 15 is for apps that add this repository
    // for RedeemKit: SwiftPM builds only what a product needs, so they never build the server. Kit/ is the same SDK
    // as its own package, for macOS 12 apps and for its tests.
    platforms: [.macOS(.v15), .iOS(.v15)],
    products: [
        .library(name: "RedeemKit", targets: ["RedeemKit"]),
        .executable(name: "redeem", targets: ["redeem"]),
        .executable(name: "redeem-example", targets: ["redeem-example"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // Settings layered from flags and the environment (`Settings` in RedeemServer); no file formats needed.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: []),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-openapi-hummingbird.git", from: "2.1.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Tracing, only when an OTLP endpoint is configured; OTLP over HTTP only (the gRPC exporter is left out).
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // The client SDK: Foundation only, so it builds without any of the dependencies above.
        .target(name: "RedeemKit", path: "Kit/Sources/RedeemKit", swiftSettings: strict),
        .target(
            name: "RedeemCore",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "RedeemStripe",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .target(
            name: "RedeemWebhooks",
            dependencies: ["RedeemCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),
        .systemLibrary(name: "CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The SQL kernel: statements, values, rows, and the connection and database protocols both engines implement.
        .target(name: "SQLKernel", swiftSettings: strict),
        // Our SQLite engine: one writer with group commit, pooled readers, each connection on its own thread.
        .target(name: "FastSQLite", dependencies: ["CSQLite3", "SQLKernel"], swiftSettings: strict),
        // Our PostgreSQL engine: PostgresNIO's pooled client behind the same kernel protocols; the only target that
        // imports the driver, so SQLSTATEs become `StoreError`s here.
        .target(
            name: "PostgresEngine",
            dependencies: [
                "SQLKernel",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "RedeemStore",
            dependencies: [
                "FastSQLite",
                "PostgresEngine",
                "SQLKernel",
                "RedeemCore",
                "RedeemWebhooks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "RedeemServer",
            dependencies: [
                "RedeemCore",
                "RedeemMail",
                "RedeemQR",
                "RedeemStore",
                "RedeemStripe",
                "RedeemWebhooks",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIHummingbird", package: "swift-openapi-hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "HummingbirdOTP", package: "hummingbird-auth"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OTel", package: "swift-otel"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strict
        ),
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(name: "RedeemQR", dependencies: ["CQREncode"], swiftSettings: strict),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "RedeemMail", dependencies: ["CCurl"], swiftSettings: strict),
        // Fills databases for the benchmarks; kept out of the production store.
        .target(name: "RedeemBenchSupport", dependencies: ["RedeemStore"], swiftSettings: strict),
        .executableTarget(
            name: "redeem",
            dependencies: [
                "FastSQLite",
                "RedeemBenchSupport",
                "RedeemQR",
                "RedeemServer",
                "RedeemStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "redeem-example",
            dependencies: ["RedeemKit", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "RedeemKitIntegrationTests",
            dependencies: [
                "RedeemKit", "RedeemServer", "RedeemTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "RedeemCoreTests", dependencies: ["RedeemCore"], swiftSettings: strict),
        .target(
            name: "RedeemTestSupport",
            dependencies: ["RedeemStore", .product(name: "Logging", package: "swift-log")],
            path: "Tests/RedeemTestSupport",
            exclude: ["smtp_test_server.py", "webhook_receiver.py"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "RedeemStoreTests",
            dependencies: [
                "PostgresEngine", "RedeemBenchSupport", "RedeemStore", "RedeemTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "FastSQLiteTests", dependencies: ["FastSQLite", "SQLKernel"], swiftSettings: strict),
        .testTarget(
            name: "RedeemServerTests",
            dependencies: [
                "RedeemServer",
                "RedeemStripe",
                "RedeemTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdOTP", package: "hummingbird-auth"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "RedeemQRTests", dependencies: ["RedeemQR"], swiftSettings: strict),
        .testTarget(name: "RedeemWebhooksTests", dependencies: ["RedeemWebhooks"], swiftSettings: strict),
        .testTarget(
            name: "RedeemStripeTests",
            dependencies: ["RedeemStripe"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "RedeemMailTests",
            dependencies: ["RedeemMail", "RedeemTestSupport"],
            swiftSettings: strict
        ),
    ]
)
