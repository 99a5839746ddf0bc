package dev.lethe.store.soak;

/**
 * What the oracle needs to know of the run besides its history.
 *
 * @param writers how many writers ran, at least 1
 * @param chaos whether a chaos loop ran
 * @param kills how many replicas it killed
 * @param servingKills how many of those answered a request just before the kill
 * @param servingKillsRequired how many serving kills the run must have made ({@link
 *     ChaosPlanner#servingKillsRequired}); 0 without chaos
 */
public record RunFacts(int writers, boolean chaos, int kills, int servingKills, int servingKillsRequired) {}
