package dev.lethe.catalog.jobs;

import dev.lethe.catalog.entity.HoldDao.Hold;
import dev.lethe.catalog.entity.ProtectionDao.Protection;
import java.util.List;
import java.util.Objects;

/**
 * What an operator did to a cleanup job, a legal hold or a drop protection (docs/design/0447-operator-events.md),
 * delivered to {@link PurgeEventListener#onOperatorEvent} once the action's transaction committed, and
 * only when it changed something. A sibling of {@link PurgeEvent}, not one of its cases: a hold or a
 * protection has no job. No event carries FileIO properties or credentials, and none prints them
 * ({@link CleanupJob#toString}, {@link Hold} and {@link Protection} hold only names, who, when and why).
 */
public sealed interface OperatorEvent {
  /** The principal who acted ({@code anonymous} with auth off). */
  String by();

  /** When, ms since epoch: the database clock of the action's transaction (a protection: the server's clock, as stored). */
  long at();

  /** The catalog's name. */
  String catalog();

  /** A {@code FAILED} job was put back to {@code PENDING} (docs/design/0440-job-control.md). */
  record JobRetried(CleanupJob job, String by, long at) implements OperatorEvent {
    public JobRetried {
      Objects.requireNonNull(job, "job");
    }

    @Override
    public String catalog() {
      return job.catalogName();
    }
  }

  /** A {@code PENDING} job waiting out its backoff was made claimable now; never for one that was not waiting. */
  record JobRunNow(CleanupJob job, String by, long at) implements OperatorEvent {
    public JobRunNow {
      Objects.requireNonNull(job, "job");
    }

    @Override
    public String catalog() {
      return job.catalogName();
    }
  }

  /** A {@code FAILED} job ended {@code ABANDONED} (docs/design/0443-abandon-and-rescue.md); {@code reason} as stored. */
  record JobAbandoned(CleanupJob job, String by, long at, String reason) implements OperatorEvent {
    public JobAbandoned {
      Objects.requireNonNull(job, "job");
    }

    @Override
    public String catalog() {
      return job.catalogName();
    }
  }

  /** A job ended {@code CANCELLED} and its table is back; {@code reason} as stored, null when none was given. */
  record JobRescued(CleanupJob job, String by, long at, String reason) implements OperatorEvent {
    public JobRescued {
      Objects.requireNonNull(job, "job");
    }

    @Override
    public String catalog() {
      return job.catalogName();
    }
  }

  /**
   * A legal hold was placed (docs/design/0444-legal-holds.md).
   *
   * @param hold the hold as stored: kind, namespace, name, placed by and at, reason, end time
   * @param replaced holds on the same object this placing released (as they now are); usually empty
   * @param runningPurges covered table purges that were {@code RUNNING} when it was placed
   */
  record HoldPlaced(String catalog, Hold hold, List<Hold> replaced, List<Long> runningPurges) implements OperatorEvent {
    public HoldPlaced {
      Objects.requireNonNull(hold, "hold");
      replaced = List.copyOf(replaced);
      runningPurges = List.copyOf(runningPurges);
    }

    @Override
    public String by() {
      return hold.placedBy();
    }

    @Override
    public long at() {
      return hold.placedAt();
    }
  }

  /** A legal hold was released; {@code hold} as it now is, with who released it and when. */
  record HoldReleased(String catalog, Hold hold) implements OperatorEvent {
    public HoldReleased {
      Objects.requireNonNull(hold, "hold");
      Objects.requireNonNull(hold.releasedAt(), "hold.releasedAt");
    }

    @Override
    public String by() {
      return hold.releasedBy();
    }

    @Override
    public long at() {
      return hold.releasedAt();
    }
  }

  /** A drop protection was set (or set again, replacing setter, time and reason; docs/design/0441-drop-protection.md). */
  record ProtectionSet(String catalog, Protection protection) implements OperatorEvent {
    public ProtectionSet {
      Objects.requireNonNull(protection, "protection");
    }

    @Override
    public String by() {
      return protection.setBy();
    }

    @Override
    public long at() {
      return protection.setAt();
    }
  }

  /** A drop protection was cleared; {@code protection} as it was stored until then. */
  record ProtectionCleared(String catalog, Protection protection, String by, long at) implements OperatorEvent {
    public ProtectionCleared {
      Objects.requireNonNull(protection, "protection");
    }
  }
}
