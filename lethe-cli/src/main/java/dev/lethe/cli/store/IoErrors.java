package dev.lethe.cli.store;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * Turns an I/O error into the words of one stderr line. Many {@link FileSystemException}s carry
 * only the path as their message ({@code AccessDeniedException: /data/ns}), which would tell the
 * user where but not what.
 */
final class IoErrors {

  private IoErrors() {}

  /** Returns e.g. {@code /data/ns/col: permission denied}; never null. */
  static String describe(Throwable cause) {
    if (cause == null) {
      return "unknown I/O error";
    }
    if (cause instanceof FileSystemException fse && fse.getReason() == null) {
      String what = fse.getFile() == null ? "" : fse.getFile() + ": ";
      if (fse.getOtherFile() != null) {
        what = fse.getFile() + " -> " + fse.getOtherFile() + ": ";
      }
      return what + reason(fse);
    }
    if (cause instanceof FileSystemException fse) {
      return fse.getMessage();
    }
    String message = cause.getMessage();
    if (message == null || message.isBlank()) {
      return cause.getClass().getSimpleName();
    }
    return cause instanceof IOException ? message : cause.getClass().getSimpleName() + ": " + message;
  }

  private static String reason(FileSystemException e) {
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (e instanceof FileAlreadyExistsException) {
      return "already exists";
    }
    if (e instanceof DirectoryNotEmptyException) {
      return "directory not empty";
    }
    return e.getClass().getSimpleName();
  }
}
