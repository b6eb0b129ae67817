// Callers of the store write and read through the kernel's types (`SQL`, `SQLRow`, `StoreError`, …).
@_exported import SQLKernel
