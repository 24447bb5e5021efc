/** Where a CLI command writes: process.stdout/stderr in the bin, buffers in tests. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}
