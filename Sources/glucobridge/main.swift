print("glucobridge")
