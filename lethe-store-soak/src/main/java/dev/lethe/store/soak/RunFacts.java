package dev.lethe.store.soak;

/**
 * What the oracle needs to know of the run besides its history.
 *
 * @param writers how many writers ran, at least 1
 * @param chaos whether a chaos loop ran
 * @param kills how many replicas it killed
 */
public record RunFacts(int writers, boolean chaos, int kills) {}
