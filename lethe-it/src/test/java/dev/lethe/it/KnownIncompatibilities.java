package dev.lethe.it;

import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables the Compatibility Kit tests that Lethe cannot pass, each with its reason; the same list
 * is in docs/compatibility.md. Registered through Jupiter's extension auto-detection.
 */
public final class KnownIncompatibilities implements ExecutionCondition {
  /** {@code SimpleClassName#method} → reason. */
  static final Map<String, String> KNOWN = Map.of();

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (context.getTestMethod().isEmpty() || context.getTestClass().isEmpty()) {
      return ConditionEvaluationResult.enabled("not a test method");
    }
    String key = context.getRequiredTestClass().getSimpleName() + "#" + context.getRequiredTestMethod().getName();
    String reason = KNOWN.get(key);
    return reason == null
        ? ConditionEvaluationResult.enabled("no known incompatibility")
        : ConditionEvaluationResult.disabled("Known incompatibility: " + reason);
  }
}
