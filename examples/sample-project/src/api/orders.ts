export async function listOrders(): Promise<string[]> {
  return ['A-1', 'A-2'];
}
