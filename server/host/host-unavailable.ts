/** The game cannot answer now: its worker is restarting or died while a request was in flight, or (in a cluster) its shard does not answer. */
export class HostUnavailableError extends Error {
  constructor(message = 'The game is restarting; try again in a moment.') {
    super(message);
    this.name = 'HostUnavailableError';
  }
}
