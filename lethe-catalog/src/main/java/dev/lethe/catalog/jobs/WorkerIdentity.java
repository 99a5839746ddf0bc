package dev.lethe.catalog.jobs;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The replica a lease belongs to, written on the job row at claim time and cleared when the lease
 * ends (docs/design/0445-job-progress-and-receipts.md).
 *
 * @param host this machine's host name ({@link InetAddress#getLocalHost()}), "unknown" if it cannot be resolved
 * @param pid this process's id ({@link ProcessHandle#pid()})
 */
public record WorkerIdentity(String host, long pid) {
  /** This process; resolved once. */
  public static WorkerIdentity current() {
    return Holder.CURRENT;
  }

  private static final class Holder {
    static final WorkerIdentity CURRENT = new WorkerIdentity(hostName(), ProcessHandle.current().pid());

    private static String hostName() {
      try {
        String h = InetAddress.getLocalHost().getHostName();
        return h.length() > 255 ? h.substring(0, 255) : h;
      } catch (UnknownHostException | SecurityException e) {
        return "unknown";
      }
    }
  }
}
