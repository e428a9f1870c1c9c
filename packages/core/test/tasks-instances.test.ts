// The scenarios of instances sharing a task store (test/fixtures/task-instances.ts) on core's
// in-memory store: one store every task manager of the test uses, reached by each instance
// through a link that can be cut (the instance crashed or lost its network).
import { createMemoryTaskStore, type TaskStore } from '../src/index.js';
import { describeTaskInstances, type InstanceStore } from './fixtures/task-instances.js';

function cuttable(store: TaskStore): InstanceStore {
  let cut = false;
  const reach = () => {
    if (cut) throw new Error('link cut');
    return store;
  };
  return {
    cut: async () => {
      cut = true;
    },
    store: {
      create: async (task) => reach().create(task),
      get: async (taskId) => reach().get(taskId),
      update: async (taskId, change) => reach().update(taskId, change),
      subscribe: (listener) => store.subscribe((task) => (cut ? undefined : listener(task))),
    },
  };
}

describeTaskInstances({
  name: 'in memory',
  async fresh(options = {}) {
    const shared = createMemoryTaskStore(options);
    return { open: async () => cuttable(shared) };
  },
});
