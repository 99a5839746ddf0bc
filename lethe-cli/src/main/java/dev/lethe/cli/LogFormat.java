package dev.lethe.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import dev.lethe.server.config.OperationsConfig;
import java.util.Iterator;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code lethe.log.format} to the process's log (docs/design/0433-observability.md): {@code
 * json} gives every console appender of the root logger logback's own {@link JsonEncoder}, one JSON
 * object a line (timestamp, level, logger, thread, message, key-value pairs, the exception); {@code
 * text} keeps logback.xml's pattern. Run once the configuration is read, before the server logs.
 */
final class LogFormat {
  private LogFormat() {}

  /** Switches the root logger's stream appenders to JSON when {@code format} says so; no-op otherwise. */
  static void apply(OperationsConfig.LogFormat format) {
    if (format != OperationsConfig.LogFormat.JSON || !(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    for (Iterator<Appender<ILoggingEvent>> it = root.iteratorForAppenders(); it.hasNext(); ) {
      if (it.next() instanceof OutputStreamAppender<ILoggingEvent> stream) {
        JsonEncoder json = new JsonEncoder();
        json.setContext(context);
        // the message as printed ("… at http://…"), not its pattern and arguments apart; no context or
        // sequence fields an operator's log pipeline has no use for
        json.setWithFormattedMessage(true);
        json.setWithMessage(false);
        json.setWithArguments(false);
        json.setWithContext(false);
        json.setWithSequenceNumber(false);
        json.setWithNanoseconds(false);
        json.start();
        stream.stop();
        stream.setEncoder(json);
        stream.start();
      }
    }
  }
}
