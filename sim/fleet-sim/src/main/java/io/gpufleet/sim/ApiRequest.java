package io.gpufleet.sim;

/** One request a client sent to the simulated API server, in arrival order. */
public record ApiRequest(long atNanos, String method, String path) {}
