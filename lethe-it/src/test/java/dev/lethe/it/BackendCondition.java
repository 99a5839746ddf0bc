package dev.lethe.it;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables every test of a run whose backend was skipped by {@link RckServerSessionListener}
 * (its server URL is empty), so the run reports skipped tests instead of connection failures.
 * Registered through Jupiter's extension auto-detection.
 */
public final class BackendCondition implements ExecutionCondition {
  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    String reason = System.getProperty(RckServerSessionListener.SKIPPED);
    return reason == null
        ? ConditionEvaluationResult.enabled("backend available")
        : ConditionEvaluationResult.disabled("Backend skipped: " + reason);
  }
}
