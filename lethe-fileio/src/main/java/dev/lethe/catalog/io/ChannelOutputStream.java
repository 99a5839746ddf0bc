package dev.lethe.catalog.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import org.apache.iceberg.io.PositionOutputStream;

/** An Iceberg {@link PositionOutputStream} over a channel {@link ConfinedLocalFiles} created. */
final class ChannelOutputStream extends PositionOutputStream {
  private final SeekableByteChannel channel;
  private long pos;

  ChannelOutputStream(SeekableByteChannel channel) {
    this.channel = channel;
  }

  /** Bytes written so far; still answered once closed (Parquet's writer asks for the length then). */
  @Override
  public long getPos() {
    return pos;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(b, off, len);
    while (buf.hasRemaining()) {
      channel.write(buf);
    }
    pos += len;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
